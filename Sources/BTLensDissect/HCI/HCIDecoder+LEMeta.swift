import BTLensCore

/// LE Meta events (Core Vol 4 Part E §7.7.65): the subevent, then its parameters.
extension HCIDecoder {
    static func leMeta(_ p: inout ByteReader, _ out: inout HCIDecoded<HCIEventInfo>) throws(ShortRead) {
        let sub = LESubeventCode(rawValue: try p.u8())
        out.info.subevent = sub
        switch sub.parameters ?? .none {
        case .connectionComplete: try leConnectionComplete(&p, &out, enhanced: false)
        case .enhancedConnectionComplete: try leConnectionComplete(&p, &out, enhanced: true)
        case .advertisingReport:
            let n = try p.u8()
            var reports = Reports()
            for _ in 0..<n {
                let eventType = UInt16(try p.u8())
                let addressType = try p.u8()
                let address = try BDAddr(&p)
                let data = try p.bytes(Int(try p.u8()))
                let report = AdvertisingReport(address: address, rssi: Int8(bitPattern: try p.u8()), data: data)
                reports.append(report, eventType: eventType, addressType: addressType, data: data)
            }
            advertising(n, reports, &out)
        case .extendedAdvertisingReport:
            let n = try p.u8()
            var reports = Reports()
            for _ in 0..<n {
                let eventType = try p.u16le()
                let addressType = try p.u8()
                let address = try BDAddr(&p)
                try p.skip(4)
                let rssi = Int8(bitPattern: try p.u8())
                try p.skip(9)
                let data = try p.bytes(Int(try p.u8()))
                let report = AdvertisingReport(address: address, rssi: rssi, data: data)
                reports.append(report, eventType: eventType, addressType: addressType, data: data)
            }
            advertising(n, reports, &out)
        case .connectionUpdateComplete:
            let status = HCIErrorCode(rawValue: try p.u8())
            let handle = try p.u16le() & 0x0fff
            let interval = try p.u16le()
            let latency = try p.u16le()
            let timeout = try p.u16le()
            out.info.fields =
                [("status", .string(status.name)), ("handle", .hex(handle))]
                + HCIUnit.connectionInterval.fields("interval", Int(interval)) + [("latency", .int(latency))]
                + HCIUnit.tenMilliseconds.fields("timeout", Int(timeout))
            let parameters = Lifecycle.Parameters(interval: interval, latency: latency, timeout: timeout)
            out.effect = .parametersUpdated(status: status, handle: handle, parameters)
        case .dataLengthChange:
            let handle = try p.u16le() & 0x0fff
            let tx = try p.u16le()
            let txTime = try p.u16le()
            let rx = try p.u16le()
            out.info.fields = [
                ("handle", .hex(handle)), ("max_tx_octets", .int(tx)), ("max_tx_time", .int(txTime)),
                ("max_rx_octets", .int(rx)),
            ]
            if let rxTime = try? p.u16le() { out.info.fields.append(("max_rx_time", .int(rxTime))) }
            out.effect = .dataLengthChanged(handle: handle, tx: Int(tx), rx: Int(rx))
        case .layout(let layout): try HCIParameter.read(layout, &p, into: &out.info.fields)
        case .phyUpdateComplete:
            let status = HCIErrorCode(rawValue: try p.u8())
            let handle = try p.u16le() & 0x0fff
            let tx = try p.u8()
            let rx = try p.u8()
            out.info.fields = [
                ("status", .string(status.name)), ("handle", .hex(handle)),
                ("tx_phy", .int(tx)), ("rx_phy", .int(rx)),
            ]
            out.effect = .phyUpdated(status: status, handle: handle, tx: tx, rx: rx)
        case .none:
            break
        }
    }

    /// LE Connection Complete, and the enhanced ones, which add 12 bytes of resolvable addresses.
    private static func leConnectionComplete(
        _ p: inout ByteReader, _ out: inout HCIDecoded<HCIEventInfo>,
        enhanced: Bool
    ) throws(ShortRead) {
        let status = HCIErrorCode(rawValue: try p.u8())
        let handle = try p.u16le() & 0x0fff
        let role = try p.u8()
        let addressType = try p.u8()
        let address = try BDAddr(&p)
        out.info.fields = [
            ("status", .string(status.name)), ("handle", .hex(handle)),
            ("role", .string(role == 0 ? "central" : "peripheral")),
            ("address", .string(address.description)), ("address_type", .int(addressType)),
        ]
        if enhanced { try p.skip(12) }
        var parameters: Lifecycle.Parameters?
        if let interval = try? p.u16le() {
            out.info.fields += HCIUnit.connectionInterval.fields("interval", Int(interval))
            if let latency = try? p.u16le(), let timeout = try? p.u16le() {
                parameters = Lifecycle.Parameters(interval: interval, latency: latency, timeout: timeout)
                out.info.fields.append(("latency", .int(latency)))
                out.info.fields += HCIUnit.tenMilliseconds.fields("timeout", Int(timeout))
            }
        }
        out.effect = .completed(
            status: status, handle: handle, address: address, addressType: addressType,
            transport: .le, role: role == 0 ? .central : .peripheral, parameters: parameters)
    }

    /// An advertising report event's reports, each parameter listed in report order.
    private struct Reports {
        var reports: [AdvertisingReport] = []
        var eventTypes: [String] = []
        var addressTypes: [String] = []
        var data: [String] = []

        mutating func append(_ r: AdvertisingReport, eventType: UInt16, addressType: UInt8, data: ArraySlice<UInt8>) {
            reports.append(r)
            eventTypes.append(String(eventType))
            addressTypes.append(String(addressType))
            self.data.append(Hex.string(data))
        }
    }

    /// The reports' parameters, each a list in report order, as `addresses` always was.
    private static func advertising(_ n: UInt8, _ reports: Reports, _ out: inout HCIDecoded<HCIEventInfo>) {
        let rssi = reports.reports.map { String($0.rssi) }
        out.info.fields = [
            ("reports", .int(n)),
            ("addresses", .string(reports.reports.map(\.address.description).joined(separator: " "))),
            ("address_types", .string(reports.addressTypes.joined(separator: " "))),
            ("event_types", .string(reports.eventTypes.joined(separator: " "))),
            ("rssi_values", .string(rssi.joined(separator: " "))),
            ("advertising_data", .string(reports.data.joined(separator: " "))),
        ]
        out.effect = .advertising(reports.reports)
    }
}
