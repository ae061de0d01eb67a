/*
 * replay.c - a main() for a fuzz harness without libFuzzer: feeds it files,
 * once each, in name order, with no fuzzing (`make check`, in every build).
 *
 *   replay-NAME [FILE|DIR]...
 *
 * With no argument it replays the harness's committed corpus and every
 * reproducer ever found: tests/fuzz/corpus/NAME and tests/fuzz/repro/NAME
 * of the source tree (acs_fuzz_srcdir), NAME from the program's own name. A crash or a
 * sanitizer report ends the program (the test fails); otherwise it prints
 * how many inputs it fed and exits 0. Deterministic: the same files give
 * the same calls in the same order.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

/* Largest input replayed: what libFuzzer gives a harness (-max_len) is far
 * smaller; a corpus file beyond this is a mistake. */
#define MAX_INPUT (16 << 20)

/* The file in a buffer of exactly its size, so the sanitizers see any
 * read past the input, as under libFuzzer. */
static int feed_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  long len = -1;

  if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && len <= MAX_INPUT &&
      fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(len ? (size_t)len : 1)) != NULL &&
      fread(buf, 1, (size_t)len, f) == (size_t)len) {
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    return 0;
  }
  fprintf(stderr, "replay: cannot read %s%s\n", path, len > MAX_INPUT ? ": too large" : "");
  if (f)
    fclose(f);
  free(buf);
  return -1;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order; *count adds the files fed. A
 * missing directory holds nothing. */
static int feed_dir(const char *dir, long *count)
{
  DIR *dp = opendir(dir);
  struct dirent *e;
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;

  if (!dp)
    return errno == ENOENT ? 0 : -1;
  while ((e = readdir(dp)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    if (n == cap) {
      char **grown = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));
      if (!grown) {
        rc = -1;
        break;
      }
      names = grown;
    }
    if (!(names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) {
      rc = -1;
      break;
    }
    sprintf(names[n++], "%s/%s", dir, e->d_name);
  }
  closedir(dp);
  qsort(names, n, sizeof(*names), cmp_str);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      rc = feed_file(names[i]);
      (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

static int feed_path(const char *path, long *count)
{
  struct stat st;

  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode))
    return feed_dir(path, count);
  (*count)++;
  return feed_file(path);
}

int main(int argc, char **argv)
{
  const char *base = strrchr(argv[0], '/'), *name;
  char dir[1024];
  long corpus = 0, repro = 0;

  base = base ? base + 1 : argv[0];
  name = strncmp(base, "replay-", 7) == 0 ? base + 7 : base;
  acs_fuzz_init();
  if (argc > 1) {
    for (int i = 1; i < argc; i++)
      if (feed_path(argv[i], &corpus) < 0)
        return 2;
    printf("fuzz-%s: replayed %ld inputs\n", name, corpus);
    return 0;
  }
  snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", acs_fuzz_srcdir(), name);
  if (feed_dir(dir, &corpus) < 0)
    return 2;
  snprintf(dir, sizeof(dir), "%s/tests/fuzz/repro/%s", acs_fuzz_srcdir(), name);
  if (feed_dir(dir, &repro) < 0)
    return 2;
  printf("fuzz-%s: replayed %ld corpus inputs and %ld reproducers\n", name, corpus, repro);
  /* The summary line quickstart.sh check adds up over the test logs. */
  printf("%ld passed, 0 failed\n", corpus + repro);
  /* A harness with nothing to replay tests nothing: that is a failure. */
  return corpus + repro > 0 ? 0 : 1;
}
