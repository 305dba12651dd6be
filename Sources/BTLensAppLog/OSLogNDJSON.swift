import Foundation

/// `log show --style ndjson`: one JSON object per event (log(1)); the keys read are `timestamp`
/// (`2023-11-14 22:13:20.036123+0100`), `messageType`, `subsystem`, `category`, `processImagePath`,
/// `processID`, `threadID` and `eventMessage`. The last line is a summary, `{"count":…,"finished":1}`.
enum OSLogNDJSON {
    enum Line {
        case event(LogFields)
        /// The closing `{"count":…,"finished":1}`: not an event, not a problem.
        case summary
        case unreadable
    }

    static func parse(_ line: [UInt8]) -> Line {
        guard line.first == UInt8(ascii: "{"),
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        else { return .unreadable }
        guard let stamp = object["timestamp"] as? String, let time = LogTimeParser.parse(whole: Substring(stamp)) else {
            return object["finished"] != nil ? .summary : .unreadable
        }
        let subsystem = nonEmpty(object["subsystem"])
        let category = nonEmpty(object["category"])
        let process = nonEmpty(object["processImagePath"]).map { path in
            path.split(separator: "/").last.map(String.init) ?? path
        }
        // The same tag as the text styles' `[subsystem:category]`, else the process.
        let tag = subsystem.map { s in category.map { "\(s):\($0)" } ?? s } ?? process
        return .event(
            LogFields(
                time: time, level: nonEmpty(object["messageType"]), tag: tag, pid: integer(object["processID"]),
                tid: integer(object["threadID"]), message: object["eventMessage"] as? String ?? ""))
    }

    static func fields(_ line: [UInt8]) -> LogFields? {
        if case .event(let fields) = parse(line) { return fields }
        return nil
    }

    private static func nonEmpty(_ value: Any?) -> String? {
        guard let s = value as? String, !s.isEmpty else { return nil }
        return s
    }

    /// A JSON number that is a whole number within Int's range.
    private static func integer(_ value: Any?) -> Int? {
        (value as? NSNumber).flatMap { Int(exactly: $0.doubleValue) }
    }
}
