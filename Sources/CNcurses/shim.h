// ncursesw, wide characters on. Macros and globals Swift cannot import
// (or may not touch under strict concurrency) are wrapped as functions.
#ifndef PODS_CNCURSES_SHIM_H
#define PODS_CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <ncursesw/curses.h>
#include <locale.h>
#include <wchar.h>
// No <signal.h> or <termios.h> here: under _XOPEN_SOURCE their structs (ucontext_t) differ from
// SwiftGlibc's, and a fresh build fails; the crash handler is PodsTerminal's own (CrashRestore).
#include <errno.h>
#include <unistd.h>

static inline WINDOW *pods_stdscr(void) { return stdscr; }
static inline int pods_lines(void) { return LINES; }
static inline int pods_cols(void) { return COLS; }
static inline int pods_colors(void) { return COLORS; }
static inline attr_t pods_a_normal(void) { return A_NORMAL; }
static inline attr_t pods_a_bold(void) { return A_BOLD; }
static inline attr_t pods_a_dim(void) { return A_DIM; }
static inline attr_t pods_a_reverse(void) { return A_REVERSE; }
static inline attr_t pods_a_underline(void) { return A_UNDERLINE; }
static inline int pods_key_resize(void) { return KEY_RESIZE; }
// Sets the attributes and the (extended) colour pair for the text that follows.
static inline int pods_attr_set(attr_t attributes, int pair) { return attr_set(attributes, (short)0, &pair); }
// Writes n wide characters at (y, x).
static inline int pods_mvaddnwstr(int y, int x, const wchar_t *text, int n) { return mvaddnwstr(y, x, text, n); }
// The columns a character takes (the C library's tables, as the terminal's).
static inline int pods_wcwidth(unsigned int character) { return wcwidth((wchar_t)character); }
// One key: OK with a character, KEY_CODE_YES with a function key, ERR on timeout.
static inline int pods_get_wch(wint_t *key) { return get_wch(key); }
// A SIGWINCH handler that writes a byte to a pipe, so a thread asleep in
// poll() wakes for a resize that came between two polls (pods_winch(-(fd+1))
// sets the pipe). Installed before initscr, it keeps ncurses from
// installing its own: the caller resizes (resizeterm).
// (The pipe is kept in the handler's own static: Swift's importer emits a
// header's functions, not its file-scope variables.)
static void pods_winch(int value) {
    static int fd = -1;
    if (value < 0) { fd = -value - 1; return; }  // set up: value = -(fd + 1)
    int saved = errno;  // a handler leaves errno as it found it
    if (fd >= 0) { char byte = 1; (void)!write(fd, &byte, 1); }
    errno = saved;
}
#endif
