import BTLensCore
import BTLensDissect

extension SampleCaptures {
    /// An app's session with the Aurora headphones, and what the app logged of it, in two styles.
    public struct AppLogSample {
        public var session: LESession
        /// Android logcat `threadtime`: milliseconds, no year, the phone's local time (UTC+1).
        public var logcat: String
        /// The app's own logger: whole seconds and a zone (`+0100`), the iOS style.
        public var appLog: String
        /// The logcat's clock + this is the capture's: −1 h, as the phone's zone is UTC+1.
        public static let logcatOffsetMicroseconds: Int64 = -3_600_000_000
        /// Lines that log bytes sent that never went out, and records received the app never logged.
        public var notOnAir: [Int]
        public var notLogged: [Int]
        /// The record each logcat line with bytes shows, by line number.
        public var matches: [Int: Int]
    }

    /// The capture: discovery, then six A5 exchanges; the app logs each TX 3 ms before it goes out
    /// and each RX 4 ms after it arrives. One logged command never reaches the air (the app's
    /// write failed) and one battery event is never logged.
    public static func appLogSession() -> AppLogSample {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: peer)
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received, [0x09, 0x07] + chr(0x0012, 0x04, 0x0013, 0xfff3) + chr(0x0014, 0x10, 0x0015, 0xfff4))
        var logcat: [String] = ["--------- beginning of main"]
        var appLog: [String] = []
        var matches: [Int: Int] = [:]
        var notOnAir: [Int] = []
        var notLogged: [Int] = []
        // The phone's clock, UTC+1 (the capture's day, 2023-11-14, there too): logcat with
        // milliseconds and no year, the app's logger in whole seconds with its zone.
        func local(_ micros: Int64) -> (logcat: String, app: String) {
            let t = micros + 3_600_000_000
            let (day, ms) = ((t / 1_000_000) % 86_400, (t / 1000) % 1000)
            func pad(_ v: Int64, _ n: Int) -> String { String(repeating: "0", count: n - String(v).count) + String(v) }
            let clock = "\(pad(day / 3600, 2)):\(pad(day / 60 % 60, 2)):\(pad(day % 60, 2))"
            return ("11-14 \(clock).\(pad(ms, 3))", "2023-11-14 \(clock) +0100")
        }
        func log(_ micros: Int64, _ level: String, _ text: String) {
            let (l, a) = local(micros)
            logcat.append("\(l)  4321  4390 \(level) AuroraBLE: \(text)")
            appLog.append("\(a) [BLE][DATA] \(text)")
        }
        log(s.time, "I", "connected to AA:BB:CC:11:22:33, discovering services")
        let exchanges: [(command: UInt8, payload: [UInt8], response: [UInt8])] = [
            (0x20, [0x01], [0x00]), (0x21, [0x00, 0x10, 0x20], [0x00, 0x30]), (0x20, [0x02], [0x00]),
            (0x22, [0x02], [0x03, 0x04]), (0x20, [0x03], [0x00]), (0x30, [0x10, 0x11, 0x12], [0x00]),
        ]
        // Sequence numbers count what reaches the air: the failed write's number is used again.
        var (sequence, eventSequence): (UInt8, UInt8) = (1, 0x41)
        for (i, x) in exchanges.enumerated() {
            // 20 ms between exchanges: the log's lines are in time order, as an app writes them.
            s.time += 20_000
            let command = Frame.encode(command: x.command, sequence: sequence, payload: x.payload)
            // Logged 3 ms before the write goes out.
            log(s.time + 1_250 - 3_000, "D", "TX write fff3: \(Hex.spaced(command))")
            if i == 3 {
                // The write of this one failed in the app: it is logged, never sent.
                notOnAir.append(logcat.count)
                continue
            }
            let sent = s.att(handle: h, .sent, [0x52, 0x13, 0x00] + command)
            s.expectFrame(sent, .sent, 0x0013, command: x.command, sequence: sequence, payload: x.payload)
            matches[logcat.count] = sent
            let response = Frame.encode(command: x.command | 0x80, sequence: eventSequence, payload: x.response)
            let received = s.att(handle: h, .received, [0x1b, 0x15, 0x00] + response)
            s.expectFrame(
                received, .received, 0x0015, command: x.command | 0x80, sequence: eventSequence, payload: x.response)
            (sequence, eventSequence) = (sequence + 1, eventSequence + 1)
            // Logged 4 ms after it arrived, as lower-case hex with no spaces.
            log(s.time + 4_000, "D", "RX notify fff4: \(Hex.string(response))")
            matches[logcat.count] = received
            if i == 2 {
                // A battery event the app never logs.
                let battery = Frame.encode(command: 0x05, sequence: eventSequence, payload: [0x02, 0x5a, 0x64])
                let record = s.att(handle: h, .received, [0x1b, 0x15, 0x00] + battery)
                s.expectFrame(
                    record, .received, 0x0015, command: 0x05, sequence: eventSequence, payload: [0x02, 0x5a, 0x64])
                eventSequence += 1
                notLogged.append(record)
            }
        }
        log(s.time + 10_000, "I", "session done")
        s.disconnect(handle: h)
        return AppLogSample(
            session: s, logcat: logcat.joined(separator: "\n") + "\n", appLog: appLog.joined(separator: "\n") + "\n",
            notOnAir: notOnAir, notLogged: notLogged, matches: matches)
    }
}
