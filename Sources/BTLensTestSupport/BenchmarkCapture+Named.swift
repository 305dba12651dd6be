import BTLensCore
import BTLensDissect

/// The benchmark's sessions whose frames a shipped definition names.
extension BenchmarkCapture {
    /// An Aurora headphone (address AA:BB:CC:…, Dissectors/aurora-headphones.yaml): 200 commands on
    /// 0xFFF3, each answered on 0xFFF4, and an event after about one in six.
    static func auroraBlock(_ s: inout LESession, number: Int, _ framing: BenchmarkFraming?, _ rng: inout SplitMix) {
        let address: [UInt8] = [UInt8(truncatingIfNeeded: number), 0x02, 0x01, 0xcc, 0xbb, 0xaa]
        let h = connect(&s, number: number, address: address, uuids: (0xfff3, 0xfff4))
        let faulty = number % 50 == 0
        var sent: UInt8 = 0
        var received: UInt8 = 0
        for i in 0..<200 {
            var (command, request, response) = auroraExchange(&rng)
            if faulty && i == 60 { sent &+= 1 }  // a gap
            if faulty && i == 90 { sent &-= 1 }  // a duplicate
            if faulty && i == 120 { (command, request) = (0x20, []) }  // a payload too short
            let flags: UInt8 = rng.below(4) == 0 ? 0x01 : 0  // ackWanted
            var frame = auroraFrame(framing, command: command, sequence: sent, flags: flags, payload: request)
            if faulty && i == 150 { frame = [0x11, 0x22, 0x33] + frame }  // junk before a frame
            send(&s, handle: h, .sent, frame, cut: i % 8 == 0, &rng)
            sent &+= 1
            if faulty && i == 180 { continue }  // never answered
            let bad = faulty && i == 170  // a bad checksum
            let answer = auroraFrame(framing, command: command | 0x80, sequence: received, payload: response, bad: bad)
            send(&s, handle: h, .received, answer, cut: i % 8 == 4, &rng)
            received &+= 1
            if rng.below(6) == 0 {
                send(&s, handle: h, .received, auroraEvent(framing, sequence: received, &rng), cut: false, &rng)
                received &+= 1
            }
        }
        end(&s, handle: h, cutRecord: faulty)
    }

    /// A command of the Aurora protocol and the payload of its response. Firmware upload chunks
    /// are the bulk of the bytes, as in the captures users bring.
    static func auroraExchange(_ rng: inout SplitMix) -> (command: UInt8, request: [UInt8], response: [UInt8]) {
        switch rng.below(16) {
        case 0..<5:  // OtaData → status
            return (0x30, rng.bytes(160 + rng.below(81)), [0])
        case 5..<8:  // WriteSettings(block, data) → status, next block
            let block = UInt8(rng.below(32))
            return (0x21, [block] + rng.bytes(rng.below(64)), [0, block &+ 1])
        case 8..<10:  // SetEQPreset(enum) → status enum
            return (0x20, [UInt8(rng.below(4))], [UInt8(rng.below(3))])
        case 10..<12:  // SetAncMode(enum) → band levels (a repeat)
            return (0x22, [UInt8(rng.below(4))], rng.bytes(rng.below(10)))
        case 12..<14:  // GetBattery → left, right (units)
            return (0x01, [], [UInt8(rng.below(101)), UInt8(rng.below(101))])
        default:  // GetDeviceInfo → firmware version (a group), features (flags), serial (text)
            let serial = Array("AH24-\(rng.below(100_000))".utf8)
            return (0x03, [], [1, UInt8(rng.below(10)), UInt8(rng.below(256)), 0, UInt8(rng.below(16)), 0] + serial)
        }
    }

    /// BatteryStatus, Heartbeat or ErrorCounters.
    static func auroraEvent(_ framing: BenchmarkFraming?, sequence: UInt8, _ rng: inout SplitMix) -> [UInt8] {
        switch rng.below(3) {
        case 0:
            let payload = [UInt8(rng.below(3)), UInt8(rng.below(101)), UInt8(rng.below(101))]
            return auroraFrame(framing, command: 0x05, sequence: sequence, payload: payload)
        case 1: return auroraFrame(framing, command: 0x90, sequence: sequence, payload: [UInt8(rng.below(256))])
        default: return auroraFrame(framing, command: 0x06, sequence: sequence, payload: rng.bytes(rng.below(9)))
        }
    }

    /// The Lawaken lamp over iAP2 (Dissectors/lawaken-lamp.yaml, bound by the EA protocol string):
    /// 200 SetColor commands in EA packets, each answered, a Brightness event after one in five;
    /// one command in four split across two EA packets.
    static func iap2Block(_ s: inout LESession, number: Int, _ rng: inout SplitMix) {
        let h: UInt16 = 0x0080 + UInt16(number % 16)
        SampleCaptures.iap2Start(&s, handle: h, accessoryName: "Lumen Lamp")
        var phonePSN: UInt8 = 0x74
        var lampPSN: UInt8 = 0x22
        let ea: [UInt8] = [0x00, 0x05]  // EA session identifier 5
        func toLamp(_ s: inout LESession, _ data: [UInt8]) {
            let packet = SampleCaptures.iap2Packet(0x40, phonePSN, lampPSN &- 1, 2, ea + data)
            s.iap2(handle: h, .sent, packet)
            phonePSN &+= 1
        }
        func fromLamp(_ s: inout LESession, _ data: [UInt8]) {
            let packet = SampleCaptures.iap2Packet(0x40, lampPSN, phonePSN &- 1, 2, ea + data)
            s.iap2(handle: h, .received, packet)
            lampPSN &+= 1
        }
        var (sent, received): (UInt8, UInt8) = (2, 0x42)
        for i in 0..<200 {
            let color = Frame.encode(command: 0x20, sequence: sent, payload: rng.bytes(3))
            sent &+= 1
            if i % 4 == 0 {
                toLamp(&s, Array(color.prefix(4)))
                toLamp(&s, Array(color.dropFirst(4)))
            } else {
                toLamp(&s, color)
            }
            var answer = Frame.encode(command: 0xa0, sequence: received, payload: [UInt8(rng.below(3))])
            received &+= 1
            if i % 5 == 0 {
                answer += Frame.encode(command: 0x05, sequence: received, payload: [UInt8(rng.below(101))])
                received &+= 1
            }
            fromLamp(&s, answer)
        }
        s.disconnect(handle: h)
    }
}
