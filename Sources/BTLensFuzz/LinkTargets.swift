import BTLensCore
import BTLensDissect
import BTLensTestSupport

/// HCI, ACL → L2CAP and ATT: each part of the input becomes a packet of a capture that the whole
/// pipeline decodes, so every layer is reached the way a real capture reaches it.
enum LinkTargets {
    static let le: UInt16 = 0x0040
    static let bredr: UInt16 = 0x000c
    static let address: [UInt8] = [0x33, 0x22, 0x11, 0xcc, 0xbb, 0xaa]

    static func direction(_ tag: UInt8) -> Direction { tag & 1 == 0 ? .sent : .received }

    static let all = [
        FuzzTarget(
            name: "hci", summary: "parts as HCI commands, events and ACL packets (tag % 3 picks)",
            seeds: {
                [
                    Parts.encode([
                        (0, [0x0d, 0x20, 0x00]),
                        (1, [0x3e, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00] + address + [0x18, 0, 0, 0, 0xf4, 1, 0]),
                        (2, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00]),
                        (1, [0x05, 0x04, 0x00, 0x40, 0x00, 0x13]),
                    ])
                ]
            },
            capture: { bytes in
                var s = LESession()
                for (tag, body) in Parts(bytes) {
                    let type: [BTSnoopWriter.PacketType] = [.command, .event, .acl]
                    let time = s.tick()
                    _ = s.writer.add(type[Int(tag % 3)], direction(tag / 3), body, time: time)
                }
                return (s.bytes, [])
            }),
        FuzzTarget(
            name: "acl-l2cap",
            summary: "parts as ACL packets on an LE, a BR/EDR and an unknown handle, any boundary flag",
            seeds: {
                [
                    Parts.encode([
                        (0b0010_0000, [0x07, 0x00, 0x04, 0x00, 0x1b, 0x15, 0x00]),
                        (0b0001_0000, [0xa5, 0x01, 0x20, 0x07]),
                        (0b0010_0101, [0x08, 0x00, 0x01, 0x00, 0x02, 0x01, 0x04, 0x00]),
                        (0b0001_0100, [0x03, 0x00, 0x40, 0x00]),
                    ])
                ]
            },
            capture: { bytes in
                var s = connected()
                for (tag, body) in Parts(bytes) {
                    let handle = [le, bredr, 0x0041][Int(tag >> 2 & 3) % 3]
                    s.acl(handle: handle, direction(tag), boundary: tag >> 4 & 3, body)
                }
                return (s.bytes, [])
            }),
        FuzzTarget(
            name: "l2cap-signaling", summary: "parts as signalling PDUs on CID 0x0001 (BR/EDR) and 0x0005 (LE)",
            seeds: {
                [
                    Parts.encode([
                        (0, [0x02, 0x01, 0x04, 0x00, 0x03, 0x00, 0x40, 0x00]),
                        (1, [0x03, 0x01, 0x08, 0x00, 0x71, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00]),
                        (2, [0x12, 0x02, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xf4, 0x01]),
                    ])
                ]
            },
            capture: { bytes in
                var s = connected()
                for (tag, body) in Parts(bytes) {
                    let le = tag & 2 != 0
                    s.l2cap(handle: le ? Self.le : bredr, direction(tag), cid: le ? 0x0005 : 0x0001, body)
                }
                return (s.bytes, [])
            }),
        FuzzTarget(
            name: "att", summary: "parts as ATT PDUs both ways on an LE link, in 27- or 251-byte ACL fragments",
            seeds: {
                [
                    Parts.encode([
                        (0, [0x02, 0xf7, 0x00]), (1, [0x03, 0xf7, 0x00]),
                        (0, [0x08, 0x01, 0x00, 0xff, 0xff, 0x03, 0x28]),
                        (1, [0x09, 0x07, 0x12, 0x00, 0x04, 0x13, 0x00, 0xf3, 0xff]), (0, [0x0a, 0x13, 0x00]),
                        (1, [0x0b] + Array(repeating: 0x41, count: 22)), (0, [0x0c, 0x13, 0x00, 0x16, 0x00]),
                        (0, [0x16, 0x13, 0x00, 0x00, 0x00, 1, 2]), (0, [0x18, 0x01]), (1, [0x1b, 0x13, 0x00, 0xa5]),
                    ])
                ]
            },
            capture: { bytes in
                var s = connected()
                for (tag, body) in Parts(bytes) {
                    s.aclFragment = tag & 2 == 0 ? 27 : 251
                    s.att(handle: le, direction(tag), body)
                }
                return (s.bytes, [])
            }),
    ]

    /// A capture that has opened an LE connection (0x0040) and a BR/EDR one (0x000c).
    static func connected() -> LESession {
        var s = LESession()
        s.connect(handle: le, address: address)
        s.connectBREDR(handle: bredr, address: address)
        return s
    }
}
