#ifndef PODS_CDBUS_SHIM_H
#define PODS_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
