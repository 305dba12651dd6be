import BTLensTestSupport
import XCTest

/// Findings name the side that acted: the phone (sent, host to controller) or the accessory,
/// whichever of them is the GATT server.
extension LifecycleTests {
    /// Handle 0x0000 is reserved (Core Vol 3 Part F §3.2.2): a write to it is the writer's bug,
    /// after a discovery or not, and the server's Invalid Handle (§3.4.1.1) says so too.
    func testAWriteToHandleZeroIsTheWritersInvalidHandle() throws {
        var s = LESession()
        discovered(&s)
        let write = s.att(handle: 0x40, .sent, [0x12, 0x00, 0x00, 0x01, 0x02])
        let refused = s.att(handle: 0x40, .received, [0x01, 0x12, 0x00, 0x00, 0x01])
        s.att(handle: 0x40, .sent, [0x52, 0x00, 0x00, 0x01])
        let r = try run(s)
        XCTAssertEqual(r.findings, ["att.handle.invalid #\(write)", "att.error #\(refused)"])
        XCTAssertEqual(
            r.messages["att.handle.invalid"],
            "the phone's Write Request names handle 0x0000, which no attribute has: the phone sent a handle it never set (a bug in its app or stack), not a handle the discovery missed"
        )
        XCTAssertEqual(
            r.messages["att.error"],
            "the accessory refused the phone's Write Request on 0x0000: Invalid Handle; 0x0000 is no attribute's handle: the phone sent a handle it never set (a bug in its app or stack)"
        )
        // A server's notification from 0x0000 is its own bug, said once for its side.
        let notified = s.att(handle: 0x40, .received, [0x1b, 0x00, 0x00, 0x01])
        let then = try run(s)
        XCTAssertEqual(then.findings.last, "att.handle.invalid #\(notified)")
        XCTAssertEqual(
            then.messages["att.handle.invalid"],
            "the accessory's Handle Value Notification names handle 0x0000, which no attribute has: the accessory sent a handle it never set (a bug in its app or stack), not a handle the discovery missed"
        )
    }

    /// Insufficient Authentication and Authorization (Core Vol 3 Part F §3.4.1.1): the advice names
    /// who must pair and who must allow whom, whichever side is the server.
    func testErrorAdviceNamesTheSides() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        s.att(handle: 0x40, .sent, [0x0a, 0x21, 0x00])
        s.att(handle: 0x40, .received, [0x01, 0x0a, 0x21, 0x00, 0x05])
        let phone = try run(s)
        XCTAssertEqual(
            phone.messages["att.error"],
            "the accessory refused the phone's Read Request on 0x0021: Insufficient Authentication; the phone must pair (bond) with the accessory, then retry; iOS and Android start pairing on this error"
        )
        var t = LESession()
        t.connect(handle: 0x40, address: address)
        t.att(handle: 0x40, .received, [0x12, 0x21, 0x00, 0x01])
        t.att(handle: 0x40, .sent, [0x01, 0x12, 0x21, 0x00, 0x08])
        let accessory = try run(t)
        XCTAssertEqual(
            accessory.messages["att.error"],
            "the phone refused the accessory's Write Request on 0x0021: Insufficient Authorization; the phone wants authorization: it must allow the accessory"
        )
    }

    /// The phone as the GATT server: the accessory reads 0x0000, then writes a handle its own
    /// discovery of the phone's database did not find; each finding names the accessory.
    func testFindingsNameTheAccessoryWhenThePhoneIsTheServer() throws {
        var s = LESession()
        s.connect(handle: 0x40, address: address)
        let read = s.att(handle: 0x40, .received, [0x0a, 0x00, 0x00])
        let refused = s.att(handle: 0x40, .sent, [0x01, 0x0a, 0x00, 0x00, 0x01])
        // The accessory discovers the phone's services: one, 0x0010-0x0014.
        s.att(handle: 0x40, .received, [0x10, 0x01, 0x00, 0xff, 0xff, 0x00, 0x28])
        s.att(handle: 0x40, .sent, [0x11, 0x06, 0x10, 0x00, 0x14, 0x00, 0x12, 0x18])
        let write = s.att(handle: 0x40, .received, [0x12, 0x30, 0x00, 0x01])
        let r = try run(s)
        XCTAssertEqual(
            r.findings, ["att.handle.invalid #\(read)", "att.error #\(refused)", "att.handle.undiscovered #\(write)"])
        XCTAssertEqual(
            r.messages["att.handle.invalid"],
            "the accessory's Read Request names handle 0x0000, which no attribute has: the accessory sent a handle it never set (a bug in its app or stack), not a handle the discovery missed"
        )
        XCTAssertEqual(
            r.messages["att.error"],
            "the phone refused the accessory's Read Request on 0x0000: Invalid Handle; 0x0000 is no attribute's handle: the accessory sent a handle it never set (a bug in its app or stack)"
        )
        XCTAssertEqual(
            r.messages["att.handle.undiscovered"],
            "the accessory's Write Request to 0x0030, which the discovery of the phone's database in this capture did not find"
        )
    }
}
