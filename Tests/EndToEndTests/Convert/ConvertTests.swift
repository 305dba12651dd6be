import BTLensCapture
import BTLensCore
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// Every sample capture written as btsnoop, pcap and pcapng reads back with the same records,
/// A5 frames and diagnostics; where tshark is installed, it opens them with the same record count.
final class ConvertTests: XCTestCase {
    func convert(_ bytes: [UInt8], to format: CaptureWriter.Format) throws -> String {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let monitor = reader.info.linkType == 2001
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "btlens-\(UUID().uuidString).\(format.rawValue)")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        do {
            let writer = try CaptureWriter(path: url.path, format: format, monitor: monitor)
            while let item = try reader.next() { if case .record(let r) = item { writer.write(r) } }
        }
        return url.path
    }

    func summary(_ reader: inout any CaptureReader) throws -> (Int, [LESession.ExpectedFrame], [String]) {
        var records = 0
        var frames: [LESession.ExpectedFrame] = []
        var diagnostics: [String] = []
        try Pipeline.run(&reader, onRecord: { _ in records += 1 }) { e in
            if let f = e.expectedFrame { frames.append(f) }
            if let d = e.diagnostic, !d.id.hasPrefix("capture.") { diagnostics.append("#\(e.record) \(d.id)") }
        }
        return (records, frames, diagnostics)
    }

    func testRoundTripThroughEveryFormat() throws {
        for sample in SampleCaptures.all where sample.file != "cut_in_record.btsnoop" {
            var original = try CaptureFormat.open(MemorySource(sample.session.bytes))
            let expected = try summary(&original)
            for format in CaptureWriter.Format.allCases {
                let path = try convert(sample.session.bytes, to: format)
                var back = try CaptureFormat.open(path: path)
                XCTAssertEqual(back.info.format, format.rawValue, "\(sample.file) → \(format)")
                let got = try summary(&back)
                XCTAssertEqual(got.0, expected.0, "\(sample.file) → \(format): records")
                XCTAssertEqual(got.1, expected.1, "\(sample.file) → \(format): frames")
                XCTAssertEqual(got.2, expected.2, "\(sample.file) → \(format): diagnostics")
            }
        }
    }

    func testTsharkOpensTheConvertedFiles() throws {
        let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        try XCTSkipUnless(tshark != nil, "tshark is not installed")
        let sample = SampleCaptures.session()
        for format in CaptureWriter.Format.allCases {
            let path = try convert(sample.bytes, to: format)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tshark ?? "")
            p.arguments = ["-r", path, "-T", "fields", "-e", "frame.number"]
            let pipe = Pipe()
            p.standardOutput = pipe
            p.standardError = FileHandle.nullDevice
            try p.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
            XCTAssertEqual(lines.count, sample.lastRecord, format.rawValue)
        }
    }
}

/// Absurd values from hostile captures must not trap anywhere they are carried.
final class AbsurdValueTests: XCTestCase {
    func testAHugeOriginalLengthConvertsWithoutTrapping() throws {
        var w = BTSnoopWriter(datalink: 1002)
        // Original length 0xFFFFFFFF: the H4 byte and pseudo-header would push it past 32 bits.
        w.addRaw([0x02, 0x40, 0x20, 0x00, 0x00], flags: 0, time: .max / 2, cutTo: nil)
        var bytes = w.bytes
        bytes.replaceSubrange(16..<20, with: [0xff, 0xff, 0xff, 0xff])
        for format in CaptureWriter.Format.allCases {
            var reader = try CaptureFormat.open(MemorySource(bytes))
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "btlens-\(UUID().uuidString).\(format.rawValue)")
            defer { try? FileManager.default.removeItem(at: url) }
            let writer = try CaptureWriter(path: url.path, format: format, monitor: false)
            while let item = try reader.next() { if case .record(let r) = item { writer.write(r) } }
            XCTAssertEqual(writer.written, 1, format.rawValue)
        }
    }

    func testAbsurdBTSnoozTimestampsDoNotTrap() throws {
        var w = BTSnoozWriter(version: 1, lastTimestamp: UInt64(bitPattern: Int64.min) &+ 5)
        w.records = [
            .init(type: 0x20, delta: .max, bytes: [0x03, 0x0c, 0x00]),
            .init(type: 0x20, delta: .max, bytes: [0x03, 0x0c, 0x00]),
        ]
        var reader = try CaptureFormat.open(MemorySource(Array(w.text().utf8)))
        var n = 0
        try Pipeline.run(&reader, onRecord: { _ in n += 1 }) { _ in }
        XCTAssertEqual(n, 2)
    }
}
