import BTLensCapture
import BTLensCore
import BTLensDefinitions
import BTLensDissect
import BTLensPipeline
import BTLensReport
import BTLensTestSupport
import Foundation
import XCTest

/// The HTML report as a reader sees it, measured in headless Chromium (skipped where it is not
/// installed): the sequence chart stays bounded, legends wear their lines' colours, no two labels
/// of a chart overlap and none leaves its chart.
final class ReportLayoutTests: XCTestCase {
    /// A long session: 300 alike requests, 300 more each followed by a heartbeat, then four more
    /// streams and a heartbeat with a bad checksum.
    static func longSession() -> LESession {
        var s = LESession()
        let h: UInt16 = 0x0041
        s.connect(handle: h, address: [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa])
        for i in 0..<300 {
            s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: UInt8(i % 256), payload: [0x01])
        }
        // Requests and heartbeats in turn: no run to draw as one, so the chart's box must scroll.
        for i in 0..<300 {
            s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x20, sequence: UInt8((300 + i) % 256), payload: [2])
            s.frame(handle: h, attHandle: 0x0015, .received, command: 0x90, sequence: UInt8(10 + i % 200), payload: [0])
        }
        for (n, attHandle) in [UInt16(0x0015), 0x0017, 0x0019, 0x001b].enumerated() {
            for seq: UInt8 in 0..<3 {
                s.frame(handle: h, attHandle: attHandle, .received, command: 0x90, sequence: seq, payload: [UInt8(n)])
            }
        }
        s.frame(
            handle: h, attHandle: 0x0015, .received, command: 0x90, sequence: 9, payload: [9], corruptChecksum: true)
        s.frame(handle: h, attHandle: 0x0013, .sent, command: 0x21, sequence: 90, payload: [])
        return s
    }

    /// What the page looks like, as `name=value` lines written by a script the test adds to it.
    func measure(_ html: String) throws -> [String] {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let chromium else { throw XCTSkip("Chromium is not installed") }
        let file = NSTemporaryDirectory() + "btlens-layout-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let page = html.replacingOccurrences(
            of: "</body></html>", with: "<pre id=\"layout\"></pre><script>\(Self.probe)</script></body></html>")
        try page.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--virtual-time-budget=5000",
            "--dump-dom", "file://\(file)",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let start = dom.range(of: #"<pre id="layout">"#),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else {
            XCTFail("no measurements:\n\(dom.suffix(500))")
            return []
        }
        return dom[start.upperBound..<end.lowerBound].split(separator: "\n").map {
            String($0).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">")
        }
    }

    /// The sequence section's height; each legend entry whose colour is not its line's; each pair of
    /// labels whose boxes overlap, and each label not wholly inside its chart.
    static let probe = """
        (function () {
          var out = [];
          out.push('sequence-height=' + Math.round(document.getElementById('sequence').getBoundingClientRect().height));
          var first = document.querySelector('svg[aria-label="message sequence chart"] a text');
          if (first) { out.push('arrow: ' + first.textContent); }
          var frames = document.querySelector('svg[aria-label="frames over time"]');
          if (frames) {
            var lines = frames.querySelectorAll('polyline');
            var keys = Array.prototype.filter.call(frames.querySelectorAll('text'), function (t) { return t.textContent.indexOf('■') === 0; });
            out.push('legend=' + keys.length + ' of ' + lines.length);
            keys.forEach(function (t, i) {
              var fill = getComputedStyle(t).fill, stroke = lines[i] && getComputedStyle(lines[i]).stroke;
              if (fill !== stroke) { out.push('legend-colour: ' + t.textContent + ' ' + fill + ' for ' + stroke); }
            });
          }
          Array.prototype.forEach.call(document.querySelectorAll('svg'), function (svg) {
            var box = svg.getBoundingClientRect();
            var texts = Array.prototype.map.call(svg.querySelectorAll('text'), function (t) { return [t.textContent, t.getBoundingClientRect()]; });
            texts.forEach(function (a, i) {
              var r = a[1];
              if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
                out.push('outside: ' + a[0]);
              }
              texts.slice(i + 1).forEach(function (b) {
                var s = b[1];
                var w = Math.min(r.right, s.right) - Math.max(r.left, s.left), h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
                if (w > 0.5 && h > 0.5) { out.push('overlap: ' + a[0] + ' / ' + b[0]); }
              });
            });
          });
          document.getElementById('layout').textContent = out.join('\\n');
        })();
        """

    func report(_ bytes: [UInt8], file: String) throws -> String {
        var reader = try CaptureFormat.open(MemorySource(bytes))
        let builder = ReportBuilder(file: file, info: reader.info, options: ReportBuilder.Options())
        let table = DefinitionLoader.load([DissectorEndToEndTests.shipped], required: true).table
        let analyzer = try Pipeline.run(
            &reader, Configuration(dissectors: table), onRecord: builder.record, onEvent: builder.event)
        return ReportHTML.render(
            builder.finish(connections: analyzer.connectionSummaries, gatt: analyzer.gatt), generator: "test")
    }

    func testALongCaptureReadsWell() throws {
        let lines = try measure(report(Self.longSession().bytes, file: "long.btsnoop"))
        let all = lines.joined(separator: "\n")
        guard let height = lines.first.flatMap({ Int($0.dropFirst("sequence-height=".count)) }) else {
            return XCTFail(all)
        }
        XCTAssertLessThan(height, 900, "the sequence chart pushes Charts and the Timeline away")
        XCTAssertTrue(lines.contains("arrow: #4–#259 SetEQPreset ×256"), all)
        XCTAssertTrue(lines.contains("legend=5 of 5"), all)
        XCTAssertEqual(lines.filter { $0.hasPrefix("legend-colour") }, [])
        XCTAssertEqual(lines.filter { $0.hasPrefix("overlap") || $0.hasPrefix("outside") }, [])
    }

    /// The bundled captures with charts: a third stream's key once sat on the time axis' caption.
    func testTheSampleCapturesLabelsStayApart() throws {
        for name in ["ble_a5_session", "ble_credit_channel_a5", "ble_firmware_before", "bredr_iap2_ea"] {
            let file = SampleCaptureTests.captures.appendingPathComponent(name + ".btsnoop")
            let lines = try measure(report(Array(try Data(contentsOf: file)), file: name))
            let wrong = lines.filter { ["legend-colour", "overlap", "outside"].contains(where: $0.hasPrefix) }
            XCTAssertEqual(wrong, [], name)
        }
    }
}
