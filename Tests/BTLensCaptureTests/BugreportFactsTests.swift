import BTLensTestSupport
import Foundation
import XCTest

@testable import BTLensCapture

/// The phone's facts from a bugreport's text: its header and `getprop` lines, wherever the 64 KiB
/// pieces the member inflates in cut them.
final class BugreportFactsTests: XCTestCase {
    /// The start of a dumpstate text as Android writes it, then the system properties far into it.
    static func text(filler: Int) -> [UInt8] {
        let head = """
            ========================================================
            == dumpstate: 2023-11-14 22:13:20
            ========================================================

            Build: UP1A.231005.007
            Build fingerprint: 'google/panther/panther:14/UP1A.231005.007/10754064:user/release-keys'
            Bootloader: cloudripper-14.0-10680336

            """
        let props = """
            ------ SYSTEM PROPERTIES (getprop) ------
            [ro.build.version.release]: [14]\r
            [ro.product.manufacturer]: [Google]
            [ro.product.model]: [Pixel 7]
            [ro.product.model]: [a second value, not read]

            """
        return Array(head.utf8) + Array(repeating: UInt8(ascii: "x"), count: filler) + [0x0a] + Array(props.utf8)
    }

    private func facts(_ members: [(String, [UInt8], Bool)]) throws -> BugreportFacts? {
        let path = NSTemporaryDirectory() + "btlens-facts-\(UUID().uuidString).zip"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(BugreportZip.make(members.map { (name: $0.0, bytes: $0.1, deflate: $0.2) })).write(
            to: URL(fileURLWithPath: path))
        XCTAssertTrue(BugreportArchive.isZip(path: path))
        return try BugreportArchive(path: path).facts()
    }

    func testFactsFromTheHeaderAndPropertiesWhereverPiecesEnd() throws {
        for filler in [0, 65_000, 65_536 - 300, 200_000] {
            for deflate in [false, true] {
                let f = try facts([
                    ("FS/data/misc/bluetooth/logs/btsnoop_hci.log", SampleCaptures.session().bytes, false),
                    ("bugreport-panther-UP1A.231005.007-2023-11-14.txt", Self.text(filler: filler), deflate),
                ])
                XCTAssertEqual(f?.phone, "Google Pixel 7", "filler \(filler)")
                XCTAssertEqual(f?.os, "Android 14 (UP1A.231005.007)", "filler \(filler)")
                XCTAssertEqual(
                    f?.fingerprint, "google/panther/panther:14/UP1A.231005.007/10754064:user/release-keys")
            }
        }
    }

    func testFingerprintAloneGivesBrandDeviceAndRelease() throws {
        let text = "Build fingerprint: 'google/panther/panther:14/UP1A/1:user/release-keys'\n"
        let f = try facts([("bugreport.txt", Array(text.utf8), true)])
        XCTAssertEqual(f?.phone, "google/panther")
        XCTAssertEqual(f?.os, "Android 14 (UP1A)")
    }

    func testNoTextOrNothingSaidIsNil() throws {
        XCTAssertNil(try facts([("btsnoop_hci.log", SampleCaptures.session().bytes, false)]))
        XCTAssertNil(try facts([("bugreport.txt", Array("nothing here\n[ro.other]: [x]\n".utf8), true)]))
    }
}
