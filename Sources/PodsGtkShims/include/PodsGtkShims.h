// The shims are declared in CGtk/pods_gtk.h, the one header Swift imports.
