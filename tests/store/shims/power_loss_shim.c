// LD_PRELOAD shim for the power-loss test: models a disk that keeps only what was synced. Every successful
// fsync/fdatasync of a file under $GW_SHIM_DIR copies the file, as it is then, into $GW_SHIM_DURABLE (written
// to a temporary name and renamed, so a kill mid-copy leaves the previous copy). unlink removes the copy.
// After killing the process, the test replaces each file by its durable copy and deletes files that have
// none: every write not followed by a sync is lost, as after a power cut with a volatile disk cache.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int under_dir(const char* path, const char** rel) {
  const char* dir = getenv("GW_SHIM_DIR");
  if (!dir || !*dir) return 0;
  const size_t n = strlen(dir);
  if (strncmp(path, dir, n) != 0 || path[n] != '/') return 0;
  *rel = path + n + 1;
  return 1;
}

// The durable copy's name: the relative path with '/' spelled '%'.
static void durable_name(const char* rel, char* out, size_t size) {
  snprintf(out, size, "%s/", getenv("GW_SHIM_DURABLE"));
  size_t len = strlen(out);
  for (const char* p = rel; *p && len + 1 < size; ++p) out[len++] = *p == '/' ? '%' : *p;
  out[len] = 0;
}

static void keep_durable_copy(int fd) {
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return;
  path[n] = 0;
  const char* rel;
  if (!under_dir(path, &rel)) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  char target[PATH_MAX], temp[PATH_MAX + 8];
  durable_name(rel, target, sizeof target);
  snprintf(temp, sizeof temp, "%s.tmp", target);
  const int in = open(path, O_RDONLY | O_CLOEXEC);
  const int out = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (in >= 0 && out >= 0) {
    char buf[65536];
    ssize_t r;
    while ((r = read(in, buf, sizeof buf)) > 0) {
      if (write(out, buf, (size_t)r) != r) break;
    }
    rename(temp, target);
  }
  if (in >= 0) close(in);
  if (out >= 0) close(out);
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  const int rc = real(fd);
  if (rc == 0) keep_durable_copy(fd);
  return rc;
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  const int rc = real(fd);
  if (rc == 0) keep_durable_copy(fd);
  return rc;
}

int unlink(const char* path) {
  static int (*real)(const char*);
  if (!real) real = (int (*)(const char*))dlsym(RTLD_NEXT, "unlink");
  const int rc = real(path);
  const char* rel;
  if (rc == 0 && under_dir(path, &rel)) {
    char target[PATH_MAX];
    durable_name(rel, target, sizeof target);
    real(target);
  }
  return rc;
}
