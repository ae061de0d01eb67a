/*
 * plots.c - what every plot of the report shares: its files, the fixed
 * style of each scheduler, gnuplot, and the order plots are made in (see
 * plots_int.h).
 *
 * Every plot is a pair NAME.gp / NAME.dat in DIR/plots; the script reads the
 * data by its plain name and writes NAME.svg, so `cd DIR/plots && gnuplot
 * NAME.gp` redraws it after a user restyles it. gnuplot runs as a child
 * process with its output in NAME.log; it is never given anything but the
 * script's name.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sched/sched.h"
#include "report/plots_int.h"

/*
 * One colour per scheduler variant, by its place in the registry, so that a
 * scheduler looks the same in every plot of every report: Tableau 10 and
 * two more, distinguishable by most colour-blind readers together with the
 * markers. Variants past the palette, and unknown names, are gray.
 */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                      "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                      "#9c755f", "#bcbd22", "#3b3b3b"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))
static const int markers[] = {7, 5, 9, 11, 13, 15, 4, 6, 8, 10, 12};
#define GRAY "#8c8c8c"

/* ---- small helpers ---- */

const char *acs__html_esc(const char *s, char *buf, size_t size)
{
  size_t o = 0;

  for (; *s && o + 7 < size; s++) {
    const char *e = NULL;
    switch (*s) {
    case '&': e = "&amp;"; break;
    case '<': e = "&lt;"; break;
    case '>': e = "&gt;"; break;
    case '"': e = "&quot;"; break;
    case '\'': e = "&#39;"; break;
    default: buf[o++] = *s; continue;
    }
    o += (size_t)snprintf(buf + o, size - o, "%s", e);
  }
  buf[o < size ? o : size - 1] = '\0';
  return buf;
}

void acs__html_put(FILE *f, const char *s)
{
  char buf[4096];

  acs__html_esc(s, buf, sizeof(buf));
  fputs(buf, f);
}

struct acs__scale acs__scale_cycles(double max)
{
  struct acs__scale sc = {1, "cycles"};

  if (max >= 1e9)
    sc = (struct acs__scale){1e9, "Gcycles"};
  else if (max >= 1e6)
    sc = (struct acs__scale){1e6, "Mcycles"};
  else if (max >= 1e4)
    sc = (struct acs__scale){1e3, "kcycles"};
  return sc;
}

struct acs__scale acs__scale_bytes(double max)
{
  struct acs__scale sc = {1, "B"};

  if (max >= 1073741824.0)
    sc = (struct acs__scale){1073741824.0, "GiB"};
  else if (max >= 1048576.0)
    sc = (struct acs__scale){1048576.0, "MiB"};
  else if (max >= 1024.0)
    sc = (struct acs__scale){1024.0, "KiB"};
  return sc;
}

int acs__cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

void acs__gp_str(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    if (*s != '\n')
      fputc(*s, f);
  }
  fputc('\'', f);
}

void acs__dat_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++)
    fputc(*s == '"' || *s == '\n' ? '\'' : *s, f);
  fputc('"', f);
}

void acs__caption(struct acs__plot *p, const char *fmt, ...)
{
  size_t off = strlen(p->caption);
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(p->caption + off, sizeof(p->caption) - off, fmt, ap);
  va_end(ap);
}

void acs__stem(char *buf, size_t size, const char *kind, const struct acs__study *s, int wl,
               int fam)
{
  size_t o = (size_t)snprintf(buf, size, "%s", kind);

  if (wl >= 0) {
    o += (size_t)snprintf(buf + o, size - o, "_");
    for (const char *c = s->wl[wl]; *c && o + 1 < size; c++)
      buf[o++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                (*c >= '0' && *c <= '9') || *c == '-' ? *c : '_');
    buf[o] = '\0';
  }
  if (fam > 0 && o < size)
    snprintf(buf + o, size - o, "_f%d", fam);
}

const char *acs__mk_word(const struct acs__study *s)
{
  return s->simulated ? "simulated makespan" : "planned makespan";
}

const char *acs__family_suffix(const struct acs__study *s, int fam, char *buf, size_t size)
{
  if (s->nfam > 1 && fam >= 0)
    snprintf(buf, size, " on %s", s->fam[fam]);
  else
    buf[0] = '\0';
  return buf;
}

void acs__series_width(int i, int n, double *lw, double *ps)
{
  double t = n > 1 ? (double)(n - 1 - i) / (double)(n - 1) : 0;

  *lw = 1.6 + 2.8 * t;
  *ps = 0.7 + 0.9 * t;
}

/* ---- the style of a scheduler ---- */

/* The registry index of a label's variant ("list[rule=lpath]": list's), or
 * -1 for a name this acsim does not know. */
static int registry_index(const char *label)
{
  size_t n, len = strcspn(label, "[");
  const struct acs_sched_ops *const *all = acs_sched_list(&n);

  for (size_t i = 0; i < n; i++)
    if (strlen(all[i]->name) == len && strncmp(all[i]->name, label, len) == 0)
      return (int)i;
  return -1;
}

const char *acs__sched_colour(const char *label)
{
  int i = registry_index(label);

  return i >= 0 && (size_t)i < NPALETTE ? palette[i] : GRAY;
}

/* Line style k + 1 for scheduler k of the study: its variant's colour and
 * marker; a label with options (a second list, say) dashes and opens its
 * marker so it stays apart from the variant's default. */
static void line_styles(FILE *gp, const struct acs__study *s)
{
  for (size_t k = 0; k < s->nsched; k++) {
    int i = registry_index(s->sched[k]), opts = strchr(s->sched[k], '[') != NULL;
    int pt = i >= 0 ? markers[(size_t)i % (sizeof(markers) / sizeof(markers[0]))] : 1;
    fprintf(gp, "set style line %zu lw 2 pt %d ps 0.8 dt %d lc rgb '%s'\n", k + 1,
            opts ? pt - 1 : pt, opts ? 2 : 1, acs__sched_colour(s->sched[k]));
  }
}

int acs__gp_begin(struct acs__plots *pl, const struct acs__study *s, const char *name, int wl,
                  int fam, int w, int h, FILE **gp, FILE **dat, struct acs__plot **out)
{
  char path[2400];
  struct acs__plot *p;
  int err;

  if ((err = acs_grow((void **)&pl->v, sizeof(*pl->v), &pl->cap, pl->n + 1)) < 0)
    return err;
  p = &pl->v[pl->n];
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "%s", name);
  p->wl = wl;
  p->fam = fam;
  p->width = w;
  snprintf(path, sizeof(path), "%s/%s.dat", pl->dir, name);
  if (!(*dat = fopen(path, "w")))
    return ACS_EIO;
  snprintf(path, sizeof(path), "%s/%s.gp", pl->dir, name);
  if (!(*gp = fopen(path, "w"))) {
    fclose(*dat);
    return ACS_EIO;
  }
  pl->n++;
  fprintf(*gp, "# acsim report plot. Data: %s.dat. Redraw after editing: gnuplot %s.gp\n", name,
          name);
  fprintf(*gp, "set terminal svg size %d,%d dynamic noenhanced font 'Helvetica,13' "
               "background rgb '#ffffff'\n", w, h);
  fprintf(*gp, "set output '%s.svg'\nset encoding utf8\n", name);
  fprintf(*gp, "set border 3 lw 1 lc rgb '#888888'\nset tics nomirror out scale 0.5 "
               "textcolor rgb '#333333'\nset grid back lw 1 lc rgb '#e6e6e6'\n"
               "set key noenhanced textcolor rgb '#333333'\nset datafile missing 'NaN'\n");
  line_styles(*gp, s);
  *out = p;
  return ACS_OK;
}

int acs__gp_end(FILE *gp, FILE *dat)
{
  int bad = ferror(gp) | ferror(dat);

  bad |= fclose(gp) != 0;
  bad |= fclose(dat) != 0;
  return bad ? ACS_EIO : ACS_OK;
}

int acs__plots_note(struct acs__plots *pl, int wl, const char *title, const char *html)
{
  int err = acs_grow((void **)&pl->v, sizeof(*pl->v), &pl->cap, pl->n + 1);
  struct acs__plot *p;

  if (err < 0)
    return err;
  p = &pl->v[pl->n++];
  memset(p, 0, sizeof(*p));
  p->wl = wl;
  p->fam = -1;
  snprintf(p->title, sizeof(p->title), "%s", title);
  snprintf(p->caption, sizeof(p->caption), "%s", html);
  return ACS_OK;
}

void acs__plots_omit(struct acs__plots *pl, int wl, const char *fmt, ...)
{
  size_t i = wl >= 0 ? (size_t)wl : pl->nomitted - 1, off;
  va_list ap;

  if (!pl->omitted || i >= pl->nomitted)
    return;
  off = strlen(pl->omitted[i]);
  if (off > 0 && off + 1 < sizeof(pl->omitted[i]))
    pl->omitted[i][off++] = ' ', pl->omitted[i][off] = '\0';
  va_start(ap, fmt);
  vsnprintf(pl->omitted[i] + off, sizeof(pl->omitted[i]) - off, fmt, ap);
  va_end(ap);
}

/* ---- all plots ---- */

int acs__plots_write(struct acs__plots *pl, const struct acs__study *s, struct acs_diag *d)
{
  int err;

  if (mkdir(pl->dir, 0777) < 0 && errno != EEXIST)
    return acs_diag_set(d, ACS_EIO, pl->dir, 0, 0, "cannot create the directory: %s",
                        strerror(errno));
  pl->nomitted = s->nwl + 1;
  if (!(pl->omitted = calloc(pl->nomitted, sizeof(*pl->omitted))))
    return ACS_ENOMEM;
  err = acs__plot_compare(pl, s);
  for (size_t wl = 0; wl < s->nwl && err == ACS_OK; wl++) {
    /* The family's own figure first: it answers that family's question. */
    err = acs__plots_family(pl, s, (int)wl);
    if (err == ACS_OK)
      err = acs__plots_grid(pl, s, (int)wl);
    if (err == ACS_OK)
      err = acs__plot_gantt(pl, s, (int)wl);
  }
  if (err == ACS_EIO)
    return acs_diag_set(d, err, pl->dir, 0, 0, "cannot write the plot files: %s", strerror(errno));
  return err;
}

void acs__plots_free(struct acs__plots *pl)
{
  free(pl->v);
  free(pl->omitted);
  pl->v = NULL;
  pl->omitted = NULL;
  pl->n = pl->cap = pl->nomitted = 0;
}

/* ---- running gnuplot ---- */

/* Runs `gnuplot NAME.gp` in the plots directory with its output in
 * NAME.log. Returns the wait status, or -1 when it could not fork. */
static int run_gnuplot(const char *dir, const char *prog, const char *name)
{
  char gpfile[256], logfile[256];
  int status;
  pid_t pid;

  snprintf(gpfile, sizeof(gpfile), "%s.gp", name);
  snprintf(logfile, sizeof(logfile), "%s.log", name);
  fflush(NULL);
  if ((pid = fork()) < 0)
    return -1;
  if (pid == 0) {
    int fd, in = open("/dev/null", O_RDONLY);
    if (chdir(dir) < 0 || (fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
      _exit(126);
    if (in >= 0)
      dup2(in, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execlp(prog, prog, gpfile, (char *)NULL);
    dprintf(fd, "cannot run %s: %s\n", prog, strerror(errno));
    _exit(127);
  }
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return status;
}

/* The first line of NAME.log that says something, for messages. */
static void log_excerpt(const char *dir, const char *name, char *buf, size_t size)
{
  char path[2400], line[300];
  FILE *f;

  snprintf(buf, size, "see %s.log", name);
  snprintf(path, sizeof(path), "%s/%s.log", dir, name);
  if (!(f = fopen(path, "r")))
    return;
  /* gnuplot echoes the offending command, then a caret, then the message
   * ("NAME.gp" line N: ...): the last line that says something. */
  while (fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\n")] = '\0';
    if (strspn(line, " \t^") < strlen(line))
      snprintf(buf, size, "%s", line);
  }
  fclose(f);
}

void acs__plots_render(struct acs__plots *pl, const char *gnuplot, struct acs_report_info *info)
{
  const char *prog = gnuplot ? gnuplot : "gnuplot";

  for (size_t i = 0; i < pl->n; i++) {
    struct acs__plot *p = &pl->v[i];
    char path[2400];
    struct stat st;
    int status;
    if (!p->name[0])
      continue;
    info->plots++;
    if (info->gnuplot_missing) {
      info->plot_failures++;
      continue;
    }
    status = run_gnuplot(pl->dir, prog, p->name);
    snprintf(path, sizeof(path), "%s/%s.svg", pl->dir, p->name);
    if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
      info->gnuplot_missing = 1;
      info->plot_failures++;
      log_excerpt(pl->dir, p->name, info->gnuplot_error, sizeof(info->gnuplot_error));
      continue;
    }
    p->ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
            stat(path, &st) == 0 && st.st_size > 0;
    if (!p->ok) {
      log_excerpt(pl->dir, p->name, p->error, sizeof(p->error));
      if (!info->plot_failures)
        snprintf(info->gnuplot_error, sizeof(info->gnuplot_error), "%s", p->error);
      info->plot_failures++;
      unlink(path); /* a half-written SVG must not be shown */
    }
  }
}
