// What GTK's C API needs from C: signal connection, accessible properties,
// the main-queue hook and a GListModel of row numbers (see CGtk/pods_gtk.h).
#include "../CGtk/pods_gtk.h"
#include <glib-unix.h>
#include <sys/eventfd.h>

gulong pods_signal_connect(gpointer instance, const char *signal, GCallback handler, gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, 0);
}

void pods_accessible_set_label(gpointer accessible, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(accessible), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

GtkWidget *pods_drawing_area_new_image(void) {
    return g_object_new(GTK_TYPE_DRAWING_AREA, "accessible-role", GTK_ACCESSIBLE_ROLE_IMG, NULL);
}

void pods_accessible_set_value_text(gpointer accessible, const char *text) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(accessible), GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, text, -1);
}

// libdispatch's entry points for CoreFoundation's run loop: exported by the
// toolchain's libdispatch.so, what Foundation's RunLoop serves the main queue with.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

static gboolean main_queue_ready(gint fd, GIOCondition condition, gpointer data) {
    (void)condition; (void)data;
    eventfd_t value;
    (void)eventfd_read(fd, &value);
    _dispatch_main_queue_callback_4CF(NULL);
    return G_SOURCE_CONTINUE;
}

void pods_attach_main_queue(void) {
    g_unix_fd_add(_dispatch_get_main_queue_handle_4CF(), G_IO_IN, main_queue_ready, NULL);
}

struct _PodsRow {
    GObject parent;
    guint index;
};
G_DEFINE_FINAL_TYPE(PodsRow, pods_row, G_TYPE_OBJECT)
static void pods_row_class_init(PodsRowClass *klass) { (void)klass; }
static void pods_row_init(PodsRow *row) { row->index = 0; }

guint pods_row_get_index(gpointer row) { return PODS_IS_ROW(row) ? PODS_ROW(row)->index : 0; }

struct _PodsRowModel {
    GObject parent;
    guint count;
};

static GType row_model_item_type(GListModel *model) { (void)model; return PODS_TYPE_ROW; }
static guint row_model_n_items(GListModel *model) { return PODS_ROW_MODEL(model)->count; }
static gpointer row_model_item(GListModel *model, guint position) {
    if (position >= PODS_ROW_MODEL(model)->count) return NULL;
    PodsRow *row = g_object_new(PODS_TYPE_ROW, NULL);
    row->index = position;
    return row;
}
static void row_model_list_init(GListModelInterface *iface) {
    iface->get_item_type = row_model_item_type;
    iface->get_n_items = row_model_n_items;
    iface->get_item = row_model_item;
}
G_DEFINE_FINAL_TYPE_WITH_CODE(PodsRowModel, pods_row_model, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_LIST_MODEL, row_model_list_init))
static void pods_row_model_class_init(PodsRowModelClass *klass) { (void)klass; }
static void pods_row_model_init(PodsRowModel *model) { model->count = 0; }

PodsRowModel *pods_row_model_new(void) { return g_object_new(PODS_TYPE_ROW_MODEL, NULL); }

void pods_row_model_splice(PodsRowModel *model, guint position, guint removed, guint added) {
    if (position > model->count || removed > model->count - position) return;
    model->count = model->count - removed + added;
    g_list_model_items_changed(G_LIST_MODEL(model), position, removed, added);
}
