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
#include <errno.h>
#include <signal.h>
#include <termios.h>
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
// The terminal as it was before curses took it, put back on a fatal signal
// (SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE): endwin() is not safe in a
// signal handler, but tcsetattr() and write() are. The handler leaves the
// alternate screen, shows the cursor and resets attributes, restores the
// saved settings (echo, canonical input), then hands the signal on to the
// handler it replaced (the runtime's backtrace, or death).
// pods_crash_restore(0) saves the settings and installs it; -1 disarms it
// (the terminal was given back cleanly). State lives in the function's
// statics, as pods_winch's does.
static void pods_crash_restore(int value) {
    static struct termios saved;
    static volatile sig_atomic_t armed = 0;
    static struct sigaction previous[65];
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE };
    if (value == 0) {
        if (tcgetattr(STDIN_FILENO, &saved) != 0) return;
        struct sigaction action;
        action.sa_handler = pods_crash_restore;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_ONSTACK;
        for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &action, &previous[fatal[i]]);
        armed = 1;
        return;
    }
    if (value < 0) { armed = 0; return; }
    if (armed) {
        static const char reset[] = "\033[0m\033[?25h\033[?1049l\r\n";
        (void)!write(STDOUT_FILENO, reset, sizeof reset - 1);
        tcsetattr(STDIN_FILENO, TCSANOW, &saved);
        armed = 0;
    }
    if (value >= 65) return;
    // The handler replaced runs now, inside raise() (the signal unblocked); if it returns
    // (the runtime's backtracer does, for a signal sent by kill), the default ends the process.
    sigaction(value, &previous[value], NULL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, value);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(value);
    signal(value, SIG_DFL);
    raise(value);
}
#endif
