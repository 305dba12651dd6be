import BTLensCore
import XCTest

@testable import BTLensDissect

/// The ACL Packet_Boundary_Flag (Core Vol 4 Part E §5.4.2).
final class ACLPacketBoundaryTests: XCTestCase {
    func testTheFlagByItsSpecificationName() {
        // Headers of handle 0x040 (LE): the flag is bits 12–13 of the first 16-bit word, the
        // broadcast flag bits 14–15 (ignored here).
        let flags = ["40 00", "40 10", "40 20", "40 30", "40 d0"].map { hex -> ACLPacketBoundary in
            let word = ByteReader.u16le(in: (Hex.bytes(hex) ?? [])[...], at: 0) ?? 0
            return ACLPacketBoundary(flag: UInt8(word >> 12 & 0xff))
        }
        XCTAssertEqual(
            flags,
            [
                .firstNonAutomaticallyFlushable, .continuingFragment, .firstAutomaticallyFlushable, .complete,
                .continuingFragment,
            ])
        let info = ACLFragmentInfo(handle: 0x40, boundary: 0b10, broadcast: 0, length: 11)
        XCTAssertEqual(info.boundary, .firstAutomaticallyFlushable)
        XCTAssertEqual(info.boundary.rawValue, 0b10)
    }
}
