import BTLensCore
import BTLensDissect

extension SampleCaptures {
    /// The Aurora headphones before and after a firmware update, for `btlens diff`: the same app
    /// session (discovery, a firmware read, notifications on, six EQ changes, an ANC change, a
    /// settings write). After the update the firmware says 1.5.0, the MTU is 185, the ANC value
    /// characteristic is gone, EQ answers take 5 ms instead of 2.5 ms, one EQ frame has a bad
    /// checksum and the settings write is never answered.
    public static func firmwareBefore() -> LESession {
        firmware(version: "1.4.2", mtu: 247, anc: true, wait: 1, faulty: false)
    }

    public static func firmwareAfter() -> LESession {
        firmware(version: "1.5.0", mtu: 185, anc: false, wait: 3, faulty: true)
    }

    static func firmware(version: String, mtu: Int, anc: Bool, wait: Int, faulty: Bool) -> LESession {
        var s = LESession()
        let h: UInt16 = 0x0040
        s.connect(handle: h, address: peer)
        s.att(handle: h, .sent, [0x02] + le16(mtu))
        s.att(handle: h, .received, [0x03] + le16(mtu))
        // Device Information 0x180A and the vendor's 0xFFF0, then their characteristics.
        s.att(handle: h, .sent, [0x10, 0x01, 0x00, 0xff, 0xff, 0x00, 0x28])
        s.att(handle: h, .received, [0x11, 0x06] + svc(0x0004, 0x0006, 0x180a) + svc(0x000d, 0x0016, 0xfff0))
        s.att(handle: h, .sent, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28])
        s.att(
            handle: h, .received,
            [0x09, 0x07] + chr(0x0005, 0x02, 0x0006, 0x2a26) + (anc ? chr(0x000e, 0x0a, 0x000f, 0xfff1) : [])
                + chr(0x0012, 0x04, 0x0013, 0xfff3) + chr(0x0014, 0x10, 0x0015, 0xfff4))
        s.att(handle: h, .sent, [0x04, 0x16, 0x00, 0x16, 0x00])
        s.att(handle: h, .received, [0x05, 0x01, 0x16, 0x00, 0x02, 0x29])
        s.att(handle: h, .sent, [0x0a, 0x06, 0x00])
        s.att(handle: h, .received, [0x0b] + text(version))
        s.att(handle: h, .sent, [0x12, 0x16, 0x00, 0x01, 0x00])
        s.att(handle: h, .received, [0x13])
        var sequence: UInt8 = 1
        func exchange(_ command: UInt8, _ payload: [UInt8], _ response: [UInt8]?, corrupt: Bool = false) {
            s.frame(
                handle: h, attHandle: 0x0013, .sent, command: command, sequence: sequence, payload: payload,
                corruptChecksum: corrupt)
            if corrupt { s.expect("a5.checksum.bad", at: s.lastRecord) }
            // Number Of Completed Packets: the controller's bookkeeping while the accessory works.
            for _ in 0..<wait { _ = s.event(0x13, [0x01] + le16(Int(h)) + [0x01, 0x00]) }
            if let response {
                s.frame(
                    handle: h, attHandle: 0x0015, .received, command: command | 0x80, sequence: sequence,
                    payload: response)
            }
            sequence &+= 1
        }
        for preset: UInt8 in [1, 2, 3, 0, 1, 2] {
            exchange(0x20, [preset], [0x00], corrupt: faulty && preset == 3)
        }
        exchange(0x22, [0x01], [0x00, 0x02, 0x04])
        exchange(0x21, [0x00, 0xaa, 0xbb], faulty ? nil : [0x00, 0x01])
        s.disconnect(handle: h)
        return s
    }
}
