/* The GStreamer bug behind podsd's crashes when switching formats at any
 * rate but 1x (issue 23), in plain GStreamer: playbin with scaletempo as its
 * audio filter plays A at RATE, goes to NULL (as a player switching tracks
 * does), then plays B. scaletempo's stop() frees its sample queue but keeps
 * bytes_queued; when B's format needs a smaller queue than A had filled,
 * reinit_buffers() memmoves from the freed (NULL) queue: SIGSEGV in the
 * streaming thread. Present in 1.22.0 (Debian 12) and in upstream main as of
 * 2026-08-21; a fix resets bytes_queued, bytes_to_slide, bytes_queue_max and
 * bytes_overlap in gst_scaletempo_stop(). Pods avoids it by putting a new
 * scaletempo in its filter before each start (PlaybackEngine.renewTimeStretch).
 *
 *   cc -o repro scaletempo-stale-queue.c $(pkg-config --cflags --libs gstreamer-1.0)
 *   for f in mp3 opus; do ffmpeg -v error -f lavfi -i sine=duration=5 -ac 2 tone.$f; done
 *   ./repro 1.5 tone.mp3 tone.opus    # Segmentation fault (F32 44.1 kHz -> S16 48 kHz)
 *   ./repro 1.0 tone.mp3 tone.opus    # survived (scaletempo passes through at 1x)
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>

static void wait_for_preroll(GstElement *pipeline) {
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(bus, 5 * GST_SECOND, GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR);
    if (message != NULL && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        fprintf(stderr, "pipeline error\n");
        exit(2);
    }
    if (message != NULL) gst_message_unref(message);
    gst_object_unref(bus);
}

static void play(GstElement *pipeline, const char *path, double rate) {
    gchar *uri = gst_filename_to_uri(path, NULL);
    g_object_set(pipeline, "uri", uri, NULL);
    g_free(uri);
    gst_element_set_state(pipeline, GST_STATE_PAUSED);
    wait_for_preroll(pipeline);
    gst_element_seek(pipeline, rate, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
                     GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1);
    wait_for_preroll(pipeline);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    g_usleep(700 * 1000);
}

int main(int argc, char **argv) {
    gst_init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: %s RATE FIRST SECOND [FILTER]\n", argv[0]);
        return 1;
    }
    double rate = atof(argv[1]);
    GstElement *pipeline = gst_element_factory_make("playbin", NULL);
    GstElement *sink = gst_parse_bin_from_description("fakesink sync=true", TRUE, NULL);
    GstElement *filter = gst_parse_bin_from_description(argc > 4 ? argv[4] : "scaletempo", TRUE, NULL);
    g_object_set(pipeline, "audio-sink", sink, "audio-filter", filter, "flags", 0x2 | 0x10, NULL);
    play(pipeline, argv[2], rate);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    play(pipeline, argv[3], rate);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    printf("survived\n");
    return 0;
}
