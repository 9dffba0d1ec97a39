/*
 * tools/common/tool_output.h - output files of the command-line tools
 * (tool_output.c): a failed run leaves nothing under the final name.
 */
#ifndef NVTXW_TOOL_OUTPUT_H
#define NVTXW_TOOL_OUTPUT_H

typedef struct tool_output {
    const char* tool;           /* for messages */
    const char* path;           /* the final name */
    char write_path[4096 + 16]; /* what the sink writes: path or a temporary */
    int temporary;
} tool_output;

/* The library's warnings (NVTXW_LOG_LEVEL, docs/logging.md: pushes never
 * popped, times out of an output's range) go to standard error unless the
 * user set NVTXW_LOG_LEVEL: a tool's user sees what changed in the output,
 * a program's user (the library's default) does not. Before any session. */
void tool_log_warnings_by_default(void);

/* Whether `value` is a zstd level the library takes for Compression=: an
 * integer from -7 to 22. */
int tool_compression_ok(const char* value);

/* The sink an output file's extension implies, in any letter case (.nvtxw
 * report, .json json, .txt text, .sqlite sqlite, .csv stats, .jsonl
 * capture), or NULL (no extension, or another one). */
const char* tool_sink_for_output(const char* output);
/* Non-zero when the last component of `output` has an extension (a dot
 * after its first character). */
int tool_output_has_extension(const char* output);
/* The known extensions, for messages: ".nvtxw, .json, ... or .jsonl". */
extern const char* const tool_output_extensions;
/* Non-zero when `value` is what --task-rows takes (the stats sink's
 * StatsTaskRows): "all", or a decimal row count of 1 or more. */
int tool_row_count_ok(const char* value);
/* A thread count for --threads: a decimal from 1 to `max`, or "auto" (the
 * CPUs this process may run on, at most `max`). 0, or -1 for anything
 * else. */
int tool_parse_threads(const char* value, unsigned max, unsigned* out);
/* Non-zero for the sinks that write files only (report, json, sqlite). */
int tool_sink_needs_file(const char* sink);
/* Non-zero when both paths exist and are the same file. */
int tool_same_file(const char* a, const char* b);

/* Non-zero when `value` can go into a session config string as a value:
 * no '|' or line break, which would end it and start another key. */
int tool_config_value_ok(const char* value);

/* The Overwrite= value of the session: "in-place" when the sink writes
 * out->write_path (the tool's own temporary file, or a FIFO or device that
 * is written directly), "yes" when the output is not a file of the tool's
 * (a backend's). */
const char* tool_overwrite_setting(int to_file);

/* Chooses out->write_path for `path` and creates the temporary file.
 * 0, or -1 with the error printed. */
int tool_output_begin(tool_output* out, const char* tool, const char* path);

/* After the run: status 0 renames the temporary into place (1 if that
 * fails, error printed); any other status removes it. Returns the status. */
int tool_output_end(tool_output* out, int status);

/* A file-size limit (ulimit -f) makes write() fail with EFBIG instead of
 * killing the tool with SIGXFSZ: the output error is then reported and the
 * temporary file removed, as on a full disk. Call first thing in main. */
void tool_ignore_file_size_signal(void);

/* Flushes standard output at the end of a run: output is buffered, so a
 * full disk or a closed pipe shows only here. A run that succeeded but
 * whose output was lost fails (1, "TOOL: error: cannot write standard
 * output: ..."); any other status is returned as it is. */
int tool_finish_stdout(const char* tool, int status);

/* Writes `text` to standard output, remembering why it failed, if it did,
 * for tool_finish_stdout's message (help texts longer than stdio's buffer
 * fail inside the write, and the flush at the end no longer knows why). */
void tool_put_stdout(const char* text);

#endif /* NVTXW_TOOL_OUTPUT_H */
