import BTLensCore

/// A progress bar on stderr, only on a terminal; cleared when done.
enum Progress {
    static func bar(_ done: Int, _ total: Int) {
        guard OS.isatty(2) else { return }
        guard done < total else { return FileHandleStderr.write("\r\u{1b}[2K") }
        let width = 30
        let filled = width * done / max(total, 1)
        FileHandleStderr.write(
            "\r[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
                + "] \(done)/\(total) files")
    }
}
