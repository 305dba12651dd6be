import BTLensCore

/// A progress bar on stderr, only on a terminal; cleared when done.
enum Progress {
    /// Asked once: the bar is called for every file done.
    private static let onTerminal = OS.isatty(2)

    static func bar(_ done: Int, _ total: Int) {
        guard onTerminal else { return }
        guard done < total else { return FileHandleStderr.write("\r\u{1b}[2K") }
        let width = 30
        let filled = width * done / max(total, 1)
        FileHandleStderr.write(
            "\r[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
                + "] \(done)/\(total) files")
    }
}
