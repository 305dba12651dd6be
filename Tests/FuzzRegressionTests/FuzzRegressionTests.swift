import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensFuzz
import BTLensTestSupport
import Foundation
import XCTest

/// Replays what fuzzing found (Fuzz/regressions/TARGET/*) and every target's seeds: each must
/// return. A trap here is a crash a capture could cause.
final class FuzzRegressionTests: XCTestCase {
    static let regressions = packageRoot.appendingPathComponent("Fuzz/regressions").path

    func testRegressionInputsReplay() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.regressions).filter {
            !$0.hasPrefix(".")
        }
        for folder in folders.sorted() {
            let target = try XCTUnwrap(FuzzTarget.named(folder), "Fuzz/regressions/\(folder) names no fuzz target")
            let dir = Self.regressions + "/" + folder
            for file in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where !file.hasPrefix(".") {
                let bytes = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/" + file))
                target.run(Array(bytes))
            }
        }
        XCTAssert(FileManager.default.fileExists(atPath: Self.regressions), "Fuzz/regressions was not found")
    }

    func testEveryTargetRunsItsSeedsAndTheirPrefixes() {
        XCTAssertEqual(Set(FuzzTarget.all.map(\.name)).count, FuzzTarget.all.count)
        for target in FuzzTarget.all {
            let seeds = target.seeds()
            XCTAssert(!seeds.isEmpty, "\(target.name) has no seeds")
            for seed in seeds {
                // Every cut of a seed: lengths that run past the end at every layer.
                for end in stride(from: 0, through: seed.count, by: max(1, seed.count / 64)) {
                    target.run(Array(seed.prefix(end)))
                }
            }
        }
    }
}

extension FuzzRegressionTests {
    /// A layer target's seed becomes a capture that reaches that layer: fuzzing starts where it should.
    func testEachLayerTargetsSeedReachesItsLayer() throws {
        let reaches: [String: (Event) -> Bool] = [
            "hci": { if case .connection(let c) = $0.body { return c.change == .opened } else { return false } },
            "acl-l2cap": { if case .att = $0.body { return true } else { return false } },
            // Each opens a connection from its CONNECT_IND.
            "sniffer": { if case .connection(let c) = $0.body { return c.change == .opened } else { return false } },
            "l2cap-signaling": { if case .l2capSignaling = $0.body { return true } else { return false } },
            "att": { if case .att(let a) = $0.body { return a.opcode == .readByTypeResponse } else { return false } },
            "rfcomm": { if case .rfcomm = $0.body { return true } else { return false } },
            "sdp": { if case .sdp = $0.body { return true } else { return false } },
            "iap2-link": { if case .iap2 = $0.body { return true } else { return false } },
            "iap2-control": { if case .iap2Identification = $0.body { return true } else { return false } },
            "dissector": {
                if case .frame(let a) = $0.body { return a.decoded?.name == "SetEQPreset" } else { return false }
            },
        ]
        let table = FuzzTarget.dissectors
        for target in FuzzTarget.all {
            guard let capture = target.capture else { continue }
            let reached = try XCTUnwrap(reaches[target.name], "\(target.name): say what its seed must reach")
            for seed in target.seeds() {
                let c = capture(seed)
                let events = try analyze(c.bytes, dissectors: table, decodeAs: c.decodeAs)
                XCTAssertTrue(events.contains(where: reached), "\(target.name)'s seed does not reach its layer")
            }
        }
    }
}

extension FuzzRegressionTests {
    /// The capture targets start from every form a user has, each read whole: pcap and pcapng with
    /// each HCI link type and LE air link type; pcapng's if_tsresol changes the units, not the times.
    func testCaptureSeedsAreEveryFormReadWhole() throws {
        var forms = Set<String>()
        for name in ["pklg", "pcap", "pcapng", "btsnooz"] {
            for seed in try XCTUnwrap(FuzzTarget.named(name)).seeds() {
                var reader = try CaptureFormat.open(MemorySource(seed))
                var times: [Int64] = []
                while let item = try reader.next() {
                    guard case .record(let r) = item else { return XCTFail("\(name): \(item)") }
                    times.append(r.timestamp.microseconds)
                }
                XCTAssertEqual(reader.info.format, name)
                XCTAssertFalse(times.isEmpty, name)
                // 2^-10 s units keep the time to within a millisecond (the Simple Packet Block has none).
                if name.hasPrefix("pcap"), let first = times.first {
                    XCTAssertEqual(Double(first), 1_700_000_000_001_250, accuracy: 1000)
                }
                forms.insert("\(reader.info.format) \(reader.info.linkType)")
            }
        }
        XCTAssertEqual(
            forms,
            [
                "pklg 0", "btsnooz 1", "btsnooz 2", "pcap 187", "pcap 201", "pcap 254", "pcapng 187", "pcapng 201",
                "pcapng 254", "pcap 251", "pcap 256", "pcap 272", "pcapng 251", "pcapng 256", "pcapng 272",
            ])
    }
}

extension FuzzRegressionTests {
    /// Decoding a capture again and again holds no more memory: the `sniffer` target ran out of
    /// memory after 51,000 runs, each analyzer kept alive by RFCOMM and iAP2 holding each other.
    func testDecodingAgainHoldsNoMoreMemory() throws {
        guard OS.heapInUse() > 0 else { throw XCTSkip("the heap in use is known on glibc and macOS only") }
        let target = try XCTUnwrap(FuzzTarget.named("pipeline"))
        let seed = try XCTUnwrap(target.seeds().first)
        for _ in 0..<20 { target.run(seed) }
        let before = OS.heapInUse()
        for _ in 0..<200 { target.run(seed) }
        let grown = Double(OS.heapInUse() - before) / 1_048_576
        XCTAssertLessThan(grown, 2, "\(grown) MB more after 200 runs")
    }
}
