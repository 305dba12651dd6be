import BTLensAppLog

/// A log line as the merger takes it: its bytes found by `HexBytes`, as the source finds them.
func readLine(_ number: Int, _ message: String, at rawTime: Int64?) -> AppLogReadLine {
    AppLogReadLine(
        line: AppLogLine(number: number, time: nil, message: message, text: message), rawTime: rawTime,
        runs: HexBytes.find(in: message))
}
