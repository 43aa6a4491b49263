// GTK 4 and libadwaita as one Clang module (adwaita.h includes gtk/gtk.h, so
// two modules would declare GtkWidget twice), with what does not import into
// Swift as it stands: cast macros, g_signal_connect, variadic calls. Only
// PodsGtk imports this.
#ifndef PODS_GTK_H
#define PODS_GTK_H

#include <gtk/gtk.h>
#include <adwaita.h>

static inline GtkWidget *pods_widget(gpointer p) { return GTK_WIDGET(p); }
static inline gboolean pods_is_button(gpointer p) { return GTK_IS_BUTTON(p); }
static inline gboolean pods_is_label(gpointer p) { return GTK_IS_LABEL(p); }
static inline gboolean pods_is_search_entry(gpointer p) { return GTK_IS_SEARCH_ENTRY(p); }
static inline GtkBox *pods_box(gpointer p) { return GTK_BOX(p); }
static inline GtkLabel *pods_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkButton *pods_button(gpointer p) { return GTK_BUTTON(p); }
static inline GtkPicture *pods_picture(gpointer p) { return GTK_PICTURE(p); }
static inline GdkPaintable *pods_paintable(gpointer p) { return GDK_PAINTABLE(p); }
static inline GtkTextView *pods_text_view(gpointer p) { return GTK_TEXT_VIEW(p); }
static inline GtkPopover *pods_popover(gpointer p) { return GTK_POPOVER(p); }
static inline GtkMenuButton *pods_menu_button(gpointer p) { return GTK_MENU_BUTTON(p); }
static inline GtkInfoBar *pods_info_bar(gpointer p) { return GTK_INFO_BAR(p); }
static inline GtkSwitch *pods_switch(gpointer p) { return GTK_SWITCH(p); }
static inline AdwPreferencesWindow *pods_preferences_window(gpointer p) { return ADW_PREFERENCES_WINDOW(p); }
static inline AdwPreferencesPage *pods_preferences_page(gpointer p) { return ADW_PREFERENCES_PAGE(p); }
static inline AdwPreferencesGroup *pods_preferences_group(gpointer p) { return ADW_PREFERENCES_GROUP(p); }
static inline AdwPreferencesRow *pods_preferences_row(gpointer p) { return ADW_PREFERENCES_ROW(p); }
static inline AdwActionRow *pods_action_row(gpointer p) { return ADW_ACTION_ROW(p); }
static inline GtkApplicationWindow *pods_gtk_app_window(gpointer p) { return GTK_APPLICATION_WINDOW(p); }
static inline GtkShortcutsWindow *pods_shortcuts_window(gpointer p) { return GTK_SHORTCUTS_WINDOW(p); }
static inline GtkDrawingArea *pods_drawing_area(gpointer p) { return GTK_DRAWING_AREA(p); }
static inline GtkFileChooser *pods_file_chooser(gpointer p) { return GTK_FILE_CHOOSER(p); }
static inline GtkNativeDialog *pods_native_dialog(gpointer p) { return GTK_NATIVE_DIALOG(p); }
static inline GtkScale *pods_scale(gpointer p) { return GTK_SCALE(p); }
static inline GtkRange *pods_range(gpointer p) { return GTK_RANGE(p); }
static inline GtkWindow *pods_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkEditable *pods_editable(gpointer p) { return GTK_EDITABLE(p); }
static inline GtkEntry *pods_entry(gpointer p) { return GTK_ENTRY(p); }
static inline GtkScrolledWindow *pods_scrolled(gpointer p) { return GTK_SCROLLED_WINDOW(p); }
static inline GtkListView *pods_list_view(gpointer p) { return GTK_LIST_VIEW(p); }
static inline GtkListItem *pods_list_item(gpointer p) { return GTK_LIST_ITEM(p); }
static inline GtkApplication *pods_application(gpointer p) { return GTK_APPLICATION(p); }
static inline GApplication *pods_gapplication(gpointer p) { return G_APPLICATION(p); }
static inline GActionMap *pods_action_map(gpointer p) { return G_ACTION_MAP(p); }
static inline GListModel *pods_list_model(gpointer p) { return G_LIST_MODEL(p); }
static inline GtkSelectionModel *pods_selection(gpointer p) { return GTK_SELECTION_MODEL(p); }
static inline AdwLeaflet *pods_leaflet(gpointer p) { return ADW_LEAFLET(p); }
static inline AdwViewStack *pods_view_stack(gpointer p) { return ADW_VIEW_STACK(p); }
static inline AdwViewSwitcherTitle *pods_view_switcher_title(gpointer p) { return ADW_VIEW_SWITCHER_TITLE(p); }
static inline AdwViewSwitcherBar *pods_view_switcher_bar(gpointer p) { return ADW_VIEW_SWITCHER_BAR(p); }
static inline AdwHeaderBar *pods_header_bar(gpointer p) { return ADW_HEADER_BAR(p); }
static inline AdwToastOverlay *pods_toast_overlay(gpointer p) { return ADW_TOAST_OVERLAY(p); }
static inline AdwApplicationWindow *pods_app_window(gpointer p) { return ADW_APPLICATION_WINDOW(p); }
static inline AdwStatusPage *pods_status_page(gpointer p) { return ADW_STATUS_PAGE(p); }

/// g_signal_connect_data with no flags.
gulong pods_signal_connect(gpointer instance, const char *signal, GCallback handler, gpointer data, GClosureNotify destroy);
/// GTK_ACCESSIBLE_PROPERTY_LABEL / VALUE_TEXT (the property call is variadic).
void pods_accessible_set_label(gpointer accessible, const char *label);
void pods_accessible_set_value_text(gpointer accessible, const char *text);
/// A GtkDrawingArea a screen reader meets as a picture (its role is construct-only).
GtkWidget *pods_drawing_area_new_image(void);
/// Serves libdispatch's main queue (Swift's MainActor) from GLib's main loop.
void pods_attach_main_queue(void);

/// A GListModel of row numbers: the rows themselves stay in Swift.
#define PODS_TYPE_ROW_MODEL (pods_row_model_get_type())
G_DECLARE_FINAL_TYPE(PodsRowModel, pods_row_model, PODS, ROW_MODEL, GObject)
#define PODS_TYPE_ROW (pods_row_get_type())
G_DECLARE_FINAL_TYPE(PodsRow, pods_row, PODS, ROW, GObject)

PodsRowModel *pods_row_model_new(void);
/// Sets the count and announces rows [position, position + removed) replaced by `added` rows.
void pods_row_model_splice(PodsRowModel *model, guint position, guint removed, guint added);
/// The row number a PodsRow item stands for.
guint pods_row_get_index(gpointer row);

#endif
