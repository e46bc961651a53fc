// The WebKitGTK 4.1 C API (GTK 3), imported by the WebKitShell module only.
#include <webkit2/webkit2.h>
#include <jsc/jsc.h>
#include <gtk/gtk.h>
#include <glib-unix.h>
