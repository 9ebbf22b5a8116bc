// The signals that end the command (TerminalSupport.h): each one noted in a flag and a byte
// written to a pipe, which a thread of the command reads. Noted first: when a storm of signals
// has filled the pipe, the byte is dropped (the pipe never blocks a handler), the flag is not.
//
// A SIGPIPE another process sent (`kill -PIPE`) is not noted: the one that matters is the
// kernel's, raised by a write of this process to a pipe or socket whose reader is gone, and the
// kernel sends it as from this process. Noted, a stray one would end the run at the first moment
// the output looked gone, however much later that came, before the input still waiting was read.
#include "TerminalSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int ts_ending_writer = -1;
static atomic_int ts_ending_seen[NSIG];

static void ts_note_ending(int signal_number, siginfo_t *info, void *context) {
  (void)context;
  int saved = errno;
  // The kernel's SIGPIPE comes as SI_USER from this process (it fills both in: no process can
  // send that as another). Anything else is dropped: another process's `kill`, and a
  // `sigqueue` or `rt_sigqueueinfo` whose siginfo may name this process but not with SI_USER.
  if (signal_number == SIGPIPE &&
      (info == NULL || info->si_code != SI_USER || info->si_pid != getpid())) {
    errno = saved;
    return;
  }
  if (signal_number > 0 && signal_number < NSIG) atomic_store(&ts_ending_seen[signal_number], 1);
  char byte = 1;
  (void)!write(atomic_load(&ts_ending_writer), &byte, 1);
  errno = saved;
}

int ts_catch_ending_signals(const int *signals, int count) {
  int ends[2];
  if (pipe(ends) != 0) return -1;
  for (int i = 0; i < 2; i++) fcntl(ends[i], F_SETFD, FD_CLOEXEC);
  fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK);
  atomic_store(&ts_ending_writer, ends[1]);
  struct sigaction action = {0};
  action.sa_sigaction = ts_note_ending;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < count; i++) sigaction(signals[i], &action, NULL);
  return ends[0];
}

int ts_wait_ending_signal(int reader, const int *signals, int count) {
  for (;;) {
    // The ones noted, in the order given (the first that is not SIGPIPE wins over SIGPIPE).
    for (int i = 0; i < count; i++) {
      int number = signals[i];
      if (number > 0 && number < NSIG && atomic_exchange(&ts_ending_seen[number], 0)) {
        return number;
      }
    }
    char byte;
    ssize_t got = read(reader, &byte, 1);
    if (got < 0 && errno != EINTR) return -1;
  }
}

int ts_signal_is_ignored(int signal_number) {
  struct sigaction current;
  if (sigaction(signal_number, NULL, &current) != 0) return 0;
  return !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN;
}
