import BTLensCore
import XCTest

@testable import BTLensDissect

/// The ACL Packet_Boundary_Flag (Core Vol 4 Part E §5.4.2) and the records an L2CAP PDU's
/// fragments came in, which `convert --filter` keeps together.
final class ACLPacketBoundaryTests: XCTestCase {
    let key = ACLKey(ConnectionKey(index: 0, handle: 0x40), .sent)
    /// An L2CAP basic frame: length 7 (LE), CID 0x0004 (ATT), then a Write Command.
    let pdu: [UInt8] = [0x07, 0x00, 0x04, 0x00, 0x52, 0x13, 0x00, 0xa5, 0x01, 0x20, 0x07]

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

    func testAPDUNamesTheRecordsOfItsContinuations() {
        var r = ACLReassembler()
        let other = ACLKey(ConnectionKey(index: 0, handle: 0x41), .sent)
        // In one fragment: no list, and nothing allocated for one.
        let whole = r.push(key, boundary: 0b10, fragment: pdu[...], record: 1, cutByCapture: false)
        XCTAssertEqual(whole.continuations, [])
        XCTAssertEqual(whole.continuations.capacity, 0)
        // In three, with another link's fragments between them.
        _ = r.push(key, boundary: 0b00, fragment: pdu[..<3], record: 2, cutByCapture: false)
        _ = r.push(other, boundary: 0b10, fragment: pdu[..<3], record: 3, cutByCapture: false)
        _ = r.push(key, boundary: 0b01, fragment: pdu[3..<6], record: 4, cutByCapture: false)
        _ = r.push(other, boundary: 0b01, fragment: pdu[3...], record: 5, cutByCapture: false)
        let split = r.push(key, boundary: 0b01, fragment: pdu[6...], record: 6, cutByCapture: false)
        XCTAssertEqual(split.pdu?.firstRecord, 2)
        XCTAssertEqual(split.continuations, [4, 6])
        // Cut by the capture in its second fragment: what was reassembled, with that record.
        _ = r.push(key, boundary: 0b10, fragment: pdu[..<5], record: 7, cutByCapture: false)
        let cut = r.push(key, boundary: 0b01, fragment: pdu[5..<6], record: 8, cutByCapture: true)
        XCTAssertEqual(cut.pdu?.truncated, true)
        XCTAssertEqual(cut.continuations, [8])
    }

    /// A PDU sent a byte at a time keeps only its last `recordLimit` continuations.
    func testTheListIsBounded() {
        var r = ACLReassembler()
        // Length 300 (0x012c), CID 0x0040, then 300 one-byte continuations in records 2–301.
        _ = r.push(key, boundary: 0b10, fragment: [0x2c, 0x01, 0x40, 0x00][...], record: 1, cutByCapture: false)
        var out: ACLReassembler.Output?
        for record in 2...301 {
            out = r.push(key, boundary: 0b01, fragment: [0x5a][...], record: record, cutByCapture: false)
        }
        XCTAssertEqual(out?.pdu?.payload.count, 300)
        XCTAssertEqual(out?.continuations, Array(46...301))
        XCTAssertEqual(ACLReassembler.recordLimit, 256)
    }

    /// Without the lower layers' events nothing reads the records: none are kept.
    func testRecordsAreKeptOnlyWhenAsked() {
        var r = ACLReassembler(tracksRecords: false)
        _ = r.push(key, boundary: 0b00, fragment: pdu[..<3], record: 1, cutByCapture: false)
        let out = r.push(key, boundary: 0b01, fragment: pdu[3...], record: 2, cutByCapture: false)
        XCTAssertEqual(out.pdu?.firstRecord, 1)
        XCTAssertEqual(out.continuations, [])
    }
}
