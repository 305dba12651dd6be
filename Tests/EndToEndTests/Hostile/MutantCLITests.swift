import BTLensCapture
import BTLensTestSupport
import Foundation
import XCTest

/// Seeded mutants of the samples in every form a user has (btsnoop 1001/1002/2001, pklg both byte
/// orders, pcap, pcapng, btsnooz, bugreport zip), and the mutants in Fuzz/mutants that once found
/// a bug, each run by the built btlens as its own process: `timeline --format jsonl`, `stats
/// --format json`, `report`, `convert`. None may die by a signal, run past 10 s (twice: a busy
/// machine can stall one run), exit with a status docs/usage.md does not give, or print JSON that
/// does not parse or a time that is not ISO 8601. scripts/mutate runs thousands of them the same way.
final class MutantCLITests: XCTestCase {
    static let perForm = 8
    static let seed: UInt64 = 22
    static let committed = JSONContractTests.root.appendingPathComponent("Fuzz/mutants")

    func testMutantsOfEveryFormAreReadOrRefusedCleanly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-mutants-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        var inputs: [String] = []
        for form in MutantForm.allCases {
            let bases = form.bases
            for index in 0..<Self.perForm {
                let m = CaptureMutator.mutant(form, bases: bases, seed: Self.seed, index: index)
                let path = folder.appendingPathComponent(m.fileName).path
                XCTAssert(FileManager.default.createFile(atPath: path, contents: Data(m.bytes)))
                inputs.append(path)
            }
        }
        let regressions = (try? FileManager.default.contentsOfDirectory(atPath: Self.committed.path)) ?? []
        inputs += regressions.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map {
            Self.committed.appendingPathComponent($0).path
        }

        // Two at a time: one per core.
        let paths = inputs
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: paths.count) { i in
            failures.add(Self.failures(paths[i], scratch: folder.appendingPathComponent("out-\(i)")))
        }
        XCTAssert(failures.all.isEmpty, failures.all.sorted().joined(separator: "\n"))
    }

    /// What went wrong in the four runs of one input.
    static func failures(_ input: String, scratch: URL) -> [String] {
        let name = (input as NSString).lastPathComponent
        let runs: [([String], ((String) throws -> Void)?)] = [
            (
                ["timeline", "--format", "jsonl", input],
                { out in
                    for line in out.split(separator: "\n") {
                        guard try StrictJSON.check(String(line)).first == "type" else {
                            throw NotAnEvent(line: String(line))
                        }
                        try checkTimes(String(line), ["time"])
                    }
                }
            ),
            (
                ["stats", "--format", "json", input],
                { out in
                    try StrictJSON.check(out)
                    try checkTimes(out, ["first_time", "last_time"])
                }
            ),
            (["report", input, "-o", scratch.path + ".html"], nil),
            (["convert", input, "-o", scratch.path + ".pcapng"], nil),
        ]
        var found: [String] = []
        for (arguments, check) in runs {
            // A run killed at the limit is run again: a stall of a busy machine is not a hang.
            var run: CLIRun?
            for _ in 0..<2 where run == nil {
                let started = Date()
                guard let done = try? runCLI(arguments, environment: ["SWIFT_BACKTRACE": "enable=no"], timeout: 10)
                else {
                    return ["\(name): btlens is not built"]
                }
                if Date().timeIntervalSince(started) < 10 { run = done }
            }
            guard let run else {
                found.append("\(name) \(arguments[0]): still running after 10 s, twice (killed)")
                continue
            }
            if ![0, 1].contains(run.status) {
                found.append(
                    "\(name) \(arguments[0]): status \(run.status) (a signal, or a status docs/usage.md does not give): \(run.stderr.suffix(500))"
                )
            } else if run.status == 0, let check {
                do { try check(run.stdout) } catch { found.append("\(name) \(arguments[0]): invalid JSON: \(error)") }
            }
        }
        return found
    }

    /// The JSONL contract (docs/jsonl.md): times are ISO 8601 UTC with microseconds (a damaged capture's
    /// year may have more digits than four).
    static func checkTimes(_ json: String, _ keys: [String]) throws {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
        for key in keys {
            guard let value = object[key], !(value is NSNull) else { continue }
            guard let time = value as? String,
                time.range(
                    of: #"^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$"#,
                    options: .regularExpression) != nil
            else { throw NotISO8601(key: key, value: "\(value)") }
        }
    }

    /// A form + seed + index names one mutant: the same bytes every time, never the base's.
    func testAMutantIsNamedByItsFormSeedAndIndex() {
        for form in MutantForm.allCases {
            let bases = form.bases
            let a = CaptureMutator.mutant(form, bases: bases, seed: 7, index: 3)
            XCTAssertEqual(a.bytes, CaptureMutator.mutant(form, bases: bases, seed: 7, index: 3).bytes, form.rawValue)
            XCTAssertNotEqual(
                a.bytes, CaptureMutator.mutant(form, bases: bases, seed: 7, index: 4).bytes, form.rawValue)
            XCTAssertFalse(a.steps.isEmpty, form.rawValue)
        }
    }

    /// Each form's unmutated captures are read as that form, every record of the sample in them:
    /// otherwise the mutants would test the refusal of garbage, not the reading of a damaged capture.
    func testEveryBaseIsAWholeCaptureOfItsForm() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("btlens-bases-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let formats: [MutantForm: String] = [
            .btsnoop1001: "btsnoop", .btsnoop1002: "btsnoop", .btsnoop2001: "btsnoop",
            .pklgBigEndian: "pklg", .pklgLittleEndian: "pklg", .pcap: "pcap",
            .pcapng: "pcapng", .btsnooz: "btsnooz", .zip: "btsnoop",
        ]
        for form in MutantForm.allCases {
            let bases = form.bases
            XCTAssertFalse(bases.isEmpty, form.rawValue)
            for base in bases {
                let path = folder.appendingPathComponent("\(form.rawValue)-\(base.name)").path
                XCTAssert(
                    FileManager.default.createFile(atPath: path, contents: Data(base.render?(base.bytes) ?? base.bytes))
                )
                var reader = try CaptureFormat.open(path: path)
                XCTAssertEqual(reader.info.format, formats[form], "\(form.rawValue) \(base.name)")
                var records = 0
                while let item = try reader.next() { if case .record = item { records += 1 } }
                XCTAssertGreaterThanOrEqual(records, 9, "\(form.rawValue) \(base.name)")
                XCTAssertFalse(
                    base.fields.isEmpty || base.records.isEmpty && base.inner == nil, "\(form.rawValue) \(base.name)")
            }
        }
    }
}

private struct NotAnEvent: Error { var line: String }
private struct NotISO8601: Error {
    var key: String
    var value: String
}

private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var found: [String] = []
    func add(_ more: [String]) { lock.withLock { found += more } }
    var all: [String] { lock.withLock { found } }
}
