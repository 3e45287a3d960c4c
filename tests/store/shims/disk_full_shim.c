// LD_PRELOAD shim for the disk-full test: while the file $GW_FULL_FLAG exists, every write to a file under
// $GW_SHIM_DIR fails with ENOSPC, as on a full filesystem; removing the flag frees the space again.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static int disk_full_for(int fd) {
  const char* flag = getenv("GW_FULL_FLAG");
  const char* dir = getenv("GW_SHIM_DIR");
  if (!flag || !dir || access(flag, F_OK) != 0) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = 0;
  const size_t len = strlen(dir);
  return strncmp(path, dir, len) == 0 && path[len] == '/';
}

typedef ssize_t (*write_fn)(int, const void*, size_t);
typedef ssize_t (*pwrite_fn)(int, const void*, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void*, size_t, off64_t);
typedef ssize_t (*writev_fn)(int, const struct iovec*, int);

#define REAL(name, type) \
  static type real;      \
  if (!real) real = (type)dlsym(RTLD_NEXT, name)

ssize_t write(int fd, const void* buf, size_t count) {
  REAL("write", write_fn);
  if (disk_full_for(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, buf, count);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  REAL("pwrite", pwrite_fn);
  if (disk_full_for(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  REAL("pwrite64", pwrite64_fn);
  if (disk_full_for(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  REAL("writev", writev_fn);
  if (disk_full_for(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, iov, iovcnt);
}
