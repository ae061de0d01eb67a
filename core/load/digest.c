/*
 * digest.c - SHA-256 (FIPS 180-4) and the content digest of a workload.
 *
 * Why SHA-256, written here: a run's identity includes its workload's
 * digest, and a study may hold millions of runs over thousands of workload
 * versions, so an accidental collision must be out of the question (a
 * 256-bit hash: about 2^-200 for a million files); files are not
 * adversarial, but a standard cryptographic hash also means a user can
 * check a stored digest with `sha256sum`. core/ may use libc, libcsv and
 * GLPK only (DESIGN.md), and SHA-256 is a hundred lines, so it is
 * implemented here from the standard rather than taken from OpenSSL,
 * libgcrypt or nettle; the tests check it against the FIPS 180-2 examples
 * and sha256sum. Throughput here is a few hundred MB/s, far below any
 * workload's parse time.
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- SHA-256 ---- */

static const uint32_t K[64] = {
  0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
  0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
  0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
  0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
  0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
  0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
  0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
  0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
  0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
  0xc67178f2u,
};

/* The block function and its rotation: their branches do not depend on
 * the data, and they read exactly the block's 64 bytes (acs_sha256_update
 * passes whole blocks only) and their own arrays. Under clang (the
 * fuzzing build) they have no coverage instrumentation, whose edges and
 * comparisons (UBSan's shift checks among them) would tell a fuzzer
 * nothing, and no AddressSanitizer checks: together they were half of a
 * fuzz run over a 50 KB model. acs_sha256_update, which finds the blocks,
 * is checked as before. */
#if defined(__clang__)
#define ACS_NO_COVERAGE __attribute__((no_sanitize("coverage", "address")))
#else
#define ACS_NO_COVERAGE
#endif

ACS_NO_COVERAGE static uint32_t ror(uint32_t x, int n)
{
  return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state. */
ACS_NO_COVERAGE static void compress(uint32_t h[8], const unsigned char *p)
{
  uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
  int i;

  for (i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
  for (; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (i = 0; i < 64; i++) {
    t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void acs_sha256_init(struct acs_sha256 *s)
{
  static const uint32_t iv[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};

  memcpy(s->h, iv, sizeof(iv));
  s->len = 0;
  s->nbuf = 0;
}

void acs_sha256_update(struct acs_sha256 *s, const void *data, size_t n)
{
  const unsigned char *p = data;

  s->len += n;
  if (s->nbuf > 0) {
    size_t take = 64 - s->nbuf < n ? 64 - s->nbuf : n;
    memcpy(s->buf + s->nbuf, p, take);
    s->nbuf += take;
    p += take;
    n -= take;
    if (s->nbuf < 64)
      return;
    compress(s->h, s->buf);
    s->nbuf = 0;
  }
  for (; n >= 64; p += 64, n -= 64)
    compress(s->h, p);
  memcpy(s->buf, p, n);
  s->nbuf = n;
}

void acs_sha256_final(struct acs_sha256 *s, unsigned char out[ACS_SHA256_BYTES])
{
  /* The message length in bits, big-endian, after a 1 bit and zeros. */
  uint64_t bits = s->len * 8;
  unsigned char pad[72] = {0x80};
  size_t npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;

  for (int i = 0; i < 8; i++)
    pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
  acs_sha256_update(s, pad, npad + 8);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (unsigned char)(s->h[i] >> 24);
    out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
    out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
    out[4 * i + 3] = (unsigned char)s->h[i];
  }
}

void acs_sha256_hex(const unsigned char d[ACS_SHA256_BYTES], char hex[ACS_DIGEST_HEX + 1])
{
  static const char digits[] = "0123456789abcdef";

  for (int i = 0; i < ACS_SHA256_BYTES; i++) {
    hex[2 * i] = digits[d[i] >> 4];
    hex[2 * i + 1] = digits[d[i] & 15];
  }
  hex[ACS_DIGEST_HEX] = '\0';
}

/* ---- the files a workload was read from ---- */

/* The SHA-256 of a whole file, in hex. O(file size). */
static int hash_file(const char *path, char hex[ACS_DIGEST_HEX + 1], struct acs_diag *d)
{
  unsigned char buf[1 << 16], md[ACS_SHA256_BYTES];
  struct acs_sha256 s;
  FILE *f = fopen(path, "rb");
  size_t n;

  if (!f)
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
  acs_sha256_init(&s);
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    acs_sha256_update(&s, buf, n);
  if (ferror(f)) {
    int e = errno;
    fclose(f);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot read: %s", strerror(e));
  }
  fclose(f);
  acs_sha256_final(&s, md);
  acs_sha256_hex(md, hex);
  return ACS_OK;
}

/* A free slot in w->files (NULL when out of memory). */
static struct acs_workload_file *next_file(struct acs_workload *w)
{
  struct acs_workload_file *files = w->files;

  if (w->nfiles == w->capfiles) {
    /* The arena cannot grow a block: take a twice larger one (the old one
     * stays until the workload is freed; workloads read a few files). */
    size_t cap = w->capfiles ? w->capfiles * 2 : 2;
    if (!(files = acs_arena_calloc(&w->arena, cap, sizeof(*files))))
      return NULL;
    if (w->nfiles)
      memcpy(files, w->files, w->nfiles * sizeof(*files));
    w->files = files;
    w->capfiles = cap;
  }
  return &files[w->nfiles];
}

int acs__workload_note_file(struct acs_workload *w, const char *path, struct acs_diag *d)
{
  struct acs_workload_file *f = next_file(w);
  int rc;

  if (!f || !(f->path = acs_arena_strdup(&w->arena, path)))
    return ACS_ENOMEM;
  if ((rc = hash_file(path, f->sha256, d)) < 0)
    return rc;
  w->nfiles++;
  return ACS_OK;
}

int acs__workload_note_text(struct acs_workload *w, const char *label, const char *text)
{
  struct acs_workload_file *f = next_file(w);
  unsigned char md[ACS_SHA256_BYTES];
  struct acs_sha256 s;

  if (!f || !(f->path = acs_arena_strdup(&w->arena, label)))
    return ACS_ENOMEM;
  acs_sha256_init(&s);
  acs_sha256_update(&s, text, strlen(text));
  acs_sha256_final(&s, md);
  acs_sha256_hex(md, f->sha256);
  w->nfiles++;
  return ACS_OK;
}

void acs__workload_seal_digest(struct acs_workload *w)
{
  unsigned char md[ACS_SHA256_BYTES];
  struct acs_sha256 s;

  if (w->nfiles == 1) {
    memcpy(w->digest, w->files[0].sha256, sizeof(w->digest));
    return;
  }
  /* Several files: the digest of their digests, one hex line each, in the
   * order read (what `sha256sum A B | cut -c1-64 | sha256sum` prints), so
   * a file moving into another role is another workload. */
  acs_sha256_init(&s);
  for (size_t i = 0; i < w->nfiles; i++) {
    acs_sha256_update(&s, w->files[i].sha256, ACS_DIGEST_HEX);
    acs_sha256_update(&s, "\n", 1);
  }
  acs_sha256_final(&s, md);
  acs_sha256_hex(md, w->digest);
}
