import BTLensFilter
import BTLensTestSupport
import Foundation
import XCTest

/// `timeline --format jsonl --filter E` prints exactly the lines of the unfiltered timeline that E
/// selects, as `JSONFilterOracle` (a second reading of the language, over the printed JSON) judges
/// them: on every sample capture, and on the real ones in ../shared/captures when they are there.
final class JSONLFilterTests: XCTestCase {
    static let expressions = [
        "a5", "diagnostic", "hci", "gatt", "l2cap", "iap2", "att", "connection",
        "a5 && command == 0x20", "command == 0x20", "command != 0x20", "command == Reset",
        "command in {0x20, 0x21, 0xa0}",
        "record in 5..20", "connection == 0x40 || connection == 65",
        "direction == sent", "severity >= warning",
        "id matches \"^a5\\\\.\"", "message contains \"checksum\"", "payload contains 00:01", "payload == 01",
        "latency_ms > 1", "response_to",
        "fields.preset == bassBoost", "flags_names == x", "checksum_ok == false", "uuid == fff3",
        "name matches \"[Rr]equest\"", "handle == 64", "att_handle in 0x10..0x20", "not (a5 or diagnostic)",
        "a5 || diagnostic && severity == error", "(a5 || diagnostic) && connection == 65",
        "reltime >= 0.01 && reltime < 0.02", "time >= \"2023-11-14T22:13:20.02Z\"",
        "services.classes contains \"Serial\"", "protocols.name matches \"com\\\\.\"", "type == \"hci.event\"",
        "status == Success", "kind == event", "dissector == aurora-headphones", "command_name == SetEQPreset",
        "change == closed || reason", "dlci in 1..10",
        "a5 && psm == 0x80", "cid == 0x41", "source_cid == 0x40", "stream_state == streaming", "hfp && codec",
        "lost > 0", "avrcp && title contains \"Hi\"", "seid == 1", "event == PlaybackStatusChanged",
    ]

    /// What selects something only in the real captures of ../shared (a command named Reset).
    static let sharedOnly: Set = ["command == Reset"]

    static var shared: String {
        JSONContractTests.root.deletingLastPathComponent().appendingPathComponent("shared/captures").path
    }

    static func captures() -> [String] {
        let samples = JSONContractTests.root.appendingPathComponent("Captures").path
        var files: [String] = []
        for folder in [samples, shared] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for n in names.sorted() where !n.hasSuffix(".md") && !n.hasSuffix(".txt") {
                files.append(folder + "/" + n)
            }
        }
        return files
    }

    func testFilteredLinesAreTheSelectedLines() throws {
        let files = Self.captures()
        XCTAssertGreaterThanOrEqual(files.count, 10)
        @Sendable func arguments(_ file: String) -> [String] {
            ["timeline", "--format", "jsonl", "-v", "--diagnostics-per-second", "0", file]
        }
        // Every run first, two processes at a time (the suite's machine has two cores), then the checks.
        let runs = Locked([CLIRun?](repeating: nil, count: files.count * (Self.expressions.count + 1)))
        DispatchQueue.concurrentPerform(iterations: files.count * (Self.expressions.count + 1)) { i in
            let (file, e) = (files[i / (Self.expressions.count + 1)], i % (Self.expressions.count + 1))
            let run = try? runCLI(arguments(file) + (e == 0 ? [] : ["--filter", Self.expressions[e - 1]]))
            runs.update { $0[i] = run }
        }
        let all = runs.value
        var selectedSomewhere = Set<String>()
        for (f, file) in files.enumerated() {
            let base = f * (Self.expressions.count + 1)
            guard let whole = all[base] else { return XCTFail("\(file) did not run") }
            let lines = whole.stdout.split(separator: "\n").map(String.init)
            let objects = try lines.map { line -> [String: JSON] in
                guard case .object(let o) = try JSONDecoder().decode(JSON.self, from: Data(line.utf8)) else {
                    throw XCTSkip("not an object: \(line)")
                }
                return o
            }
            // reltime counts from the traffic's first line: not from notes before it (an iPhone's header).
            let traffic = objects.first { $0["type"] != .string("note") } ?? objects.first
            guard case .string(let first)? = traffic?["time"], let origin = JSONFilterOracle.parseTime(first)
            else { continue }
            for (k, e) in Self.expressions.enumerated() {
                var oracle = JSONFilterOracle(e)
                oracle.origin = origin
                let expected = zip(lines, objects).filter { oracle.selects($0.1) }.map(\.0)
                guard let run = all[base + 1 + k] else { return XCTFail("\(file): \(e): did not run") }
                XCTAssertEqual(run.status, whole.status, "\(file): \(e): \(run.stderr)")
                let got = run.stdout.split(separator: "\n").map(String.init)
                XCTAssertEqual(got.count, expected.count, "\(file): \(e)")
                if got != expected {
                    XCTFail("\(file): \(e): first difference: \(zip(got, expected).first { $0 != $1 } ?? ("", ""))")
                }
                if !expected.isEmpty { selectedSomewhere.insert(e) }
            }
        }
        // The expressions are chosen to select something somewhere, but for the deliberate misses;
        // without ../shared, also but for those only its captures select.
        var misses = Set(Self.expressions).subtracting(selectedSomewhere)
        if !FileManager.default.fileExists(atPath: Self.shared) { misses.subtract(Self.sharedOnly) }
        XCTAssertEqual(misses, ["flags_names == x"], "expressions that selected nothing anywhere")
    }

    /// Every key a timeline prints is a name the filter language knows.
    func testEveryPrintedKeyIsAFilterName() throws {
        for file in Self.captures() {
            let run = try runCLI(["timeline", "--format", "jsonl", "-v", file])
            var keys = Set<String>()
            for line in run.stdout.split(separator: "\n") {
                guard case .object(let o) = try JSONDecoder().decode(JSON.self, from: Data(line.utf8)) else { continue }
                for (k, v) in o where k != "fields" {
                    keys.insert(k)
                    if case .array(let items) = v {
                        for case .object(let inner) in items { for ik in inner.keys { keys.insert(k + "." + ik) } }
                    }
                }
            }
            for k in keys.sorted() { XCTAssertNoThrow(try DisplayFilter(k), "\(file): \(k)") }
        }
    }
}

/// A value shared by the threads of `concurrentPerform`.
final class Locked<T>: @unchecked Sendable {
    private var stored: T
    private let lock = NSLock()
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func update(_ f: (inout T) -> Void) { lock.withLock { f(&stored) } }
}
