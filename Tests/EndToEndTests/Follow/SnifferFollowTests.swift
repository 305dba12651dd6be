import BTLensCore
import BTLensTestSupport
import Foundation
import XCTest

/// `btlens follow` of over-the-air sniffer captures, the CLI in its own process: LINKTYPE 251, 256
/// and 272, each in pcap and pcapng, from stdin, from a file that grows while it is followed, and
/// from a FIFO as the nRF Sniffer's Wireshark extcap writes one; kept with --write. Each gives
/// exactly the timeline `timeline` gives of the finished file.
final class SnifferFollowTests: XCTestCase {
    static let forms: [(PcapFileWriter.LinkType, PcapFileWriter.Layout)] = [
        (.leLinkLayer, .pcap(nanoseconds: false)), (.leWithPseudoHeader, .pcap(nanoseconds: false)),
        (.nordic, .pcap(nanoseconds: false)), (.leLinkLayer, .pcapng(tsresol: 6)),
        (.leWithPseudoHeader, .pcapng(tsresol: 9)), (.nordic, .pcapng(tsresol: nil)),
    ]
    /// The sample's last record, shown in every link type.
    static let last = "#23 "
    static let options = ["--no-dissectors", "--color", "never"]

    private func capture(_ link: PcapFileWriter.LinkType, _ layout: PcapFileWriter.Layout) -> [UInt8] {
        var w = PcapFileWriter(link: link, layout: layout)
        for r in SnifferCapture.records() { w.add(r) }
        return w.bytes
    }

    private func path(_ name: String) -> String {
        let p = NSTemporaryDirectory() + "sniffer-follow-\(UUID().uuidString)-\(name)"
        addTeardownBlock { unlink(p) }
        return p
    }

    private func file(_ bytes: [UInt8], _ name: String) -> String {
        let p = path(name)
        XCTAssertTrue(FileManager.default.createFile(atPath: p, contents: Data(bytes)))
        return p
    }

    private func timeline(_ path: String) throws -> String {
        let run = try runCLI(["timeline", path] + Self.options)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("\n" + Self.last), run.stdout)
        return run.stdout
    }

    private func name(_ form: (PcapFileWriter.LinkType, PcapFileWriter.Layout)) -> String {
        "\(form.0.rawValue).\(form.1 == .pcap(nanoseconds: false) ? "pcap" : "pcapng")"
    }

    /// `cat capture | btlens follow -`.
    func testStdinOfEveryLinkTypeAndFormat() throws {
        for form in Self.forms {
            let source = file(capture(form.0, form.1), name(form))
            let followed = try runCLI(["follow", "-"] + Self.options, stdin: source)
            XCTAssertEqual(followed.status, 0, "\(name(form)): \(followed.stderr)")
            XCTAssertEqual(followed.stdout, try timeline(source), name(form))
        }
    }

    /// A third of the file there when follow starts, the rest appended in pieces cut anywhere;
    /// stopped with SIGINT once the last record is shown.
    func testAGrowingFileOfEveryLinkTypeAndFormat() throws {
        for (i, form) in Self.forms.enumerated() {
            let bytes = capture(form.0, form.1)
            let growing = file(Array(bytes.prefix(bytes.count / 3)), name(form))
            let run = try FollowSignalTests.Running(["follow", growing] + Self.options)
            XCTAssertTrue(run.waitForOutput("#1 "), "\(name(form)): \(run.stderr)")
            let fd = OS.open(growing, O_WRONLY | O_APPEND)
            var rng = SplitMix(seed: UInt64(i + 1))
            var at = bytes.count / 3
            while at < bytes.count {
                let n = min(rng.below(61) + 1, bytes.count - at)
                _ = bytes[at..<at + n].withUnsafeBytes { OS.write(fd, $0.baseAddress, n) }
                at += n
                usleep(1_000)
            }
            OS.close(fd)
            XCTAssertTrue(run.waitForOutput(Self.last), "\(name(form)): \(run.stdout)\n\(run.stderr)")
            XCTAssertNotNil(run.stop(SIGINT, within: 5), name(form))
            XCTAssertEqual(run.process.terminationStatus, 0, "\(name(form)): \(run.stderr)")
            XCTAssertEqual(run.stdout, try timeline(file(bytes, "whole-" + name(form))), name(form))
        }
    }

    /// `nrf_sniffer_ble.py --capture --fifo FIFO` (the extcap) writes pcap of LINKTYPE 272 into a
    /// FIFO that btlens follows; the writer closing it ends the follow.
    func testAFIFOAsTheNordicExtcapWritesIt() throws {
        let fifo = path("extcap.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let bytes = capture(.nordic, .pcap(nanoseconds: false))
        let run = try FollowSignalTests.Running(["follow", fifo] + Self.options)
        let fd = OS.open(fifo, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        for start in stride(from: 0, to: bytes.count, by: 37) {
            let n = min(37, bytes.count - start)
            _ = bytes[start..<start + n].withUnsafeBytes { OS.write(fd, $0.baseAddress, n) }
            usleep(1_000)
        }
        OS.close(fd)
        XCTAssertEqual(run.exit(within: 30), 0, run.stderr)
        XCTAssertEqual(run.stdout, try timeline(file(bytes, "whole.pcap")))
    }

    /// --write keeps what is followed: 251 as it is, 256 and 272 as 256 with what their headers
    /// said; the file kept reads back to the same timeline. btsnoop cannot hold them: said at once.
    func testAFollowedSnifferCaptureIsKeptWithWrite() throws {
        for form in Self.forms {
            let source = file(capture(form.0, form.1), name(form))
            for format in ["pcap", "pcapng"] {
                let kept = path("kept.\(format)")
                let run = try runCLI(["follow", "-", "--write", kept] + Self.options, stdin: source)
                XCTAssertEqual(run.status, 0, "\(name(form)) → \(format): \(run.stderr)")
                XCTAssertEqual(try timeline(kept), try timeline(source), "\(name(form)) → \(format)")
            }
        }
        let source = file(capture(.nordic, .pcap(nanoseconds: false)), "272.pcap")
        let refused = try runCLI(["follow", "-", "--write", path("kept.btsnoop")] + Self.options, stdin: source)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("btsnoop holds HCI, not over-the-air LE packets"), refused.stderr)
    }

    func testConvertKeepsASnifferCapture() throws {
        let source = file(capture(.nordic, .pcapng(tsresol: nil)), "272.pcapng")
        let out = path("converted.pcap")
        let run = try runCLI(["convert", source, "-o", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "\(out): 23 of 23 records as pcap (LE pseudo-header layout)\n")
        XCTAssertEqual(try timeline(out), try timeline(source))
    }
}
