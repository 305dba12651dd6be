/// One entry of an app log: a timed line and the untimed lines that continue it.
public struct AppLogLine: Sendable, Equatable {
    /// 1-based line number, in its file, of the entry's first physical line.
    public var number: Int
    /// As written; nil for the logcat formats that write none (`brief`, `process`, `tag`).
    public var time: LogTime?
    /// As written: `D`, `E`, `Error`, `Default`, `Df`, `INFO`.
    public var level: String?
    /// Logcat's tag; `log show`'s `subsystem:category` (else the process); the bracketed category of
    /// an Xcode line; an app logger's bracketed tags joined by `/` (`[BLE][DATA]` is `BLE/DATA`).
    public var tag: String?
    public var pid: Int?
    public var tid: Int?
    /// The message, continuation lines joined by `\n`.
    public var message: String
    /// The whole entry as written, its physical lines joined by `\n` (line ends removed).
    public var text: String

    public init(
        number: Int, time: LogTime?, level: String? = nil, tag: String? = nil, pid: Int? = nil, tid: Int? = nil,
        message: String, text: String
    ) {
        self.number = number
        self.time = time
        self.level = level
        self.tag = tag
        self.pid = pid
        self.tid = tid
        self.message = message
        self.text = text
    }
}

/// What a format reads from one physical line.
struct LogFields: Equatable {
    var time: LogTime?
    var level: String?
    var tag: String?
    var pid: Int?
    var tid: Int?
    var message: String

    init(time: LogTime?, level: String? = nil, tag: String? = nil, pid: Int? = nil, tid: Int? = nil, message: String) {
        self.time = time
        self.level = level
        self.tag = tag
        self.pid = pid
        self.tid = tid
        self.message = message
    }
}
