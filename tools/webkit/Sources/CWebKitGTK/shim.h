// The WebKitGTK 4.1 C API (GTK 3), imported by the WebKitShell module only.
#include <webkit2/webkit2.h>
#include <jsc/jsc.h>
#include <gtk/gtk.h>
#include <glib-unix.h>

// A web context as the iOS WKWebView has one: ephemeral (no cache, cookies or storage
// carried from one run to the next) and swapping web processes on cross-site navigations
// (process-swap-on-cross-site-navigation-enabled: off by default in GTK 3's API, always on
// in WKWebView and in WebKitGTK 6). A helper because g_object_new is variadic.
static inline WebKitWebContext *bridgescope_web_context_new(void) {
    WebKitWebsiteDataManager *data = webkit_website_data_manager_new_ephemeral();
    WebKitWebContext *context = WEBKIT_WEB_CONTEXT(g_object_new(WEBKIT_TYPE_WEB_CONTEXT,
        "website-data-manager", data,
        "process-swap-on-cross-site-navigation-enabled", TRUE,
        NULL));
    g_object_unref(data);
    return context;
}
