#ifndef PODS_CLIBXML2_SHIM_H
#define PODS_CLIBXML2_SHIM_H
/// Debian builds libxml2 with ICU, whose headers clash with Foundation's ICU
/// module; the parser never touches the ICU converter fields.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/HTMLparser.h>
#include <libxml/entities.h>
#endif
