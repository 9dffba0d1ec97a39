/*
 * common/output_file.h - how a sink writes its output file PATH, by the
 * Overwrite setting (docs/config.md):
 *
 *   OUTPUT_KEEP      Overwrite=no: "PATH.tmp-XXXXXX", linked to PATH at
 *                    commit, which fails when PATH exists (also refused at
 *                    open, so a session does not run for nothing);
 *   OUTPUT_REPLACE   Overwrite=yes: "PATH.tmp-XXXXXX", renamed over PATH at
 *                    commit, so PATH is the old file or the whole new one;
 *   OUTPUT_IN_PLACE  Overwrite=in-place: PATH itself, truncated, for a
 *                    caller that already writes under a temporary name it
 *                    renames (the command-line tools): one file holds the
 *                    data, and after a crash that file is the one to read.
 *
 * A PATH that exists and is not a regular file (a device such as
 * /dev/null, a FIFO, a socket) is written itself whatever the setting, and
 * is never renamed over or removed: a session run as root with
 * Output=/dev/null must not replace the device with a file, nor delete it
 * when the session fails.
 *
 * A temporary name is created exclusively with mode 0666 & ~umask, as PATH
 * itself would be, and is the output's name plus ".tmp-" and six letters
 * and digits, so a user who finds one after a crash knows what it is.
 * Functions return 0 or -1 with errno set; callers word the message.
 */
#ifndef NVTXW_COMMON_OUTPUT_FILE_H
#define NVTXW_COMMON_OUTPUT_FILE_H

#include <stddef.h>

enum { OUTPUT_KEEP = 0, OUTPUT_REPLACE = 1, OUTPUT_IN_PLACE = 2 };

typedef struct output_file {
    char* path;    /* the output's name */
    char* written; /* the name being written: a temporary name, or path */
    int mode;      /* OUTPUT_* */
    int special;   /* PATH is a device, FIFO or socket: written in place, never removed */
} output_file;

/* Opens the file to write (flags: O_WRONLY or O_RDWR, maybe O_APPEND;
 * O_CLOEXEC is added) and returns its descriptor, or -1 with errno set
 * (EEXIST: PATH exists under OUTPUT_KEEP). f->written names what was
 * tried, or is NULL when out of memory (ENOMEM). */
int output_file_open(output_file* f, const char* path, int mode, int flags);

/* Makes the written file the output (nothing to do in place). On failure
 * (EEXIST: PATH appeared under OUTPUT_KEEP) the written file is removed. */
int output_file_commit(output_file* f);

/* Removes the written file: the output is not whole. */
void output_file_discard(output_file* f);

/* Frees the names (the file stays as it is). */
void output_file_free(output_file* f);

/* Writes data[0, size) to fd whole, retrying after EINTR and short writes.
 * Returns 0 or an errno value (EIO when write makes no progress); the
 * caller words the message, naming its output. */
int output_write_all(int fd, const void* data, size_t size);

#endif /* NVTXW_COMMON_OUTPUT_FILE_H */
