/* fault_shim: an LD_PRELOAD library for the fault-injection suite. It fails
 * writes and syncs of one file with a chosen errno while a control file says so:
 *   LOCSCHED_FAULT_PATH  the file to fail (the journal), compared with the fd's
 *                        /proc/self/fd link
 *   LOCSCHED_FAULT_CTL   a file holding "write ENOSPC", "write EIO", "sync EIO",
 *                        "all ENOSPC", ... or nothing (no fault); read at every call
 * Only tests/daemon/fault_test.py uses it; it is never installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { kWrite = 1, kSync = 2 };

/* The errno to fail a call of `kind` on fd with, 0 for none. */
static int FaultFor(int fd, int kind) {
  const char* ctl = getenv("LOCSCHED_FAULT_CTL");
  const char* target = getenv("LOCSCHED_FAULT_PATH");
  if (!ctl || !target) return 0;
  char buf[64] = {0};
  const int cfd = open(ctl, O_RDONLY | O_CLOEXEC);
  if (cfd < 0) return 0;
  const ssize_t n = pread(cfd, buf, sizeof buf - 1, 0);
  close(cfd);
  if (n <= 0) return 0;
  char what[16] = {0}, err[16] = {0};
  if (sscanf(buf, "%15s %15s", what, err) != 2) return 0;
  const int mask = strcmp(what, "write") == 0  ? kWrite
                   : strcmp(what, "sync") == 0 ? kSync
                                               : kWrite | kSync;
  if (!(mask & kind)) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t len = readlink(link, path, sizeof path - 1);
  if (len <= 0) return 0;
  path[len] = 0;
  if (strcmp(path, target) != 0) return 0;
  return strcmp(err, "EIO") == 0 ? EIO : ENOSPC;
}

typedef ssize_t (*WriteFn)(int, const void*, size_t);
typedef ssize_t (*PwriteFn)(int, const void*, size_t, off_t);
typedef ssize_t (*WritevFn)(int, const struct iovec*, int);
typedef int (*SyncFn)(int);

/* The next definition of `name` (libc's), looked up once. */
#define NEXT(name, type)   \
  static type next_##name; \
  if (!next_##name) next_##name = (type)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void* buf, size_t count) {
  NEXT(write, WriteFn);
  const int err = FaultFor(fd, kWrite);
  if (err) {
    errno = err;
    return -1;
  }
  return next_write(fd, buf, count);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t off) {
  NEXT(pwrite, PwriteFn);
  const int err = FaultFor(fd, kWrite);
  if (err) {
    errno = err;
    return -1;
  }
  return next_pwrite(fd, buf, count, off);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off_t off) {
  NEXT(pwrite64, PwriteFn);
  const int err = FaultFor(fd, kWrite);
  if (err) {
    errno = err;
    return -1;
  }
  return next_pwrite64(fd, buf, count, off);
}

ssize_t writev(int fd, const struct iovec* iov, int n) {
  NEXT(writev, WritevFn);
  const int err = FaultFor(fd, kWrite);
  if (err) {
    errno = err;
    return -1;
  }
  return next_writev(fd, iov, n);
}

int fdatasync(int fd) {
  NEXT(fdatasync, SyncFn);
  const int err = FaultFor(fd, kSync);
  if (err) {
    errno = err;
    return -1;
  }
  return next_fdatasync(fd);
}

int fsync(int fd) {
  NEXT(fsync, SyncFn);
  const int err = FaultFor(fd, kSync);
  if (err) {
    errno = err;
    return -1;
  }
  return next_fsync(fd);
}
