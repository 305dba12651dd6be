import BTLensCore

/// A control-session message: `40 40`, length (u16 BE, whole message), id (u16 BE), then
/// parameters of length (u16 BE, including its 4-byte header), id (u16 BE) and data.
public struct IAP2ControlMessage: Sendable {
    public var id: UInt16
    public var parameters: [(id: UInt16, data: ArraySlice<UInt8>)]

    public var name: String { Self.names[id] ?? "Unknown (\(Hex.value(id, width: 4)))" }

    public static func parse(_ bytes: ArraySlice<UInt8>) throws(ShortRead) -> IAP2ControlMessage {
        var r = ByteReader(bytes)
        guard try r.u16be() == 0x4040 else { throw ShortRead(offset: 0, needed: 2, available: 0) }
        let length = Int(try r.u16be())
        let id = try r.u16be()
        var body = ByteReader(try r.bytes(max(length - 6, 0)))
        return IAP2ControlMessage(id: id, parameters: try parameters(&body))
    }

    static func parameters(_ r: inout ByteReader) throws(ShortRead) -> [(id: UInt16, data: ArraySlice<UInt8>)] {
        var out: [(id: UInt16, data: ArraySlice<UInt8>)] = []
        while !r.isAtEnd {
            let length = Int(try r.u16be())
            let id = try r.u16be()
            out.append((id, try r.bytes(max(length - 4, 0))))
        }
        return out
    }

    /// Message names from the Accessory Interface Specification (docs/protocols/iap2.md, control messages).
    public static let names: [UInt16: String] = [
        0xaa00: "RequestAuthenticationCertificate", 0xaa01: "AuthenticationCertificate",
        0xaa02: "RequestAuthenticationChallengeResponse", 0xaa03: "AuthenticationResponse",
        0xaa04: "AuthenticationFailed", 0xaa05: "AuthenticationSucceeded",
        0xaa06: "AccessoryAuthenticationSerialNumber",
        0x1d00: "StartIdentification", 0x1d01: "IdentificationInformation", 0x1d02: "IdentificationAccepted",
        0x1d03: "IdentificationRejected", 0x1d05: "CancelIdentification", 0x1d06: "IdentificationInformationUpdate",
        0xea00: "StartExternalAccessoryProtocolSession", 0xea01: "StopExternalAccessoryProtocolSession",
        0xea02: "RequestAppLaunch", 0xea03: "StatusExternalAccessoryProtocolSession",
        0x4e01: "BluetoothComponentInformation", 0x4e03: "StartBluetoothConnectionUpdates",
        0x4e04: "BluetoothConnectionUpdate", 0x4e05: "StopBluetoothConnectionUpdates",
        0x4e09: "DeviceInformationUpdate", 0x4e0a: "DeviceLanguageUpdate", 0x4e0b: "DeviceTimeUpdate",
        0x4e0c: "DeviceUUIDUpdate", 0x4e0d: "WirelessCarPlayUpdate", 0x4e0e: "DeviceTransportIdentifierNotification",
        0x0b00: "StartBluetoothPairing", 0x0b01: "BluetoothPairingAccessoryInformation",
        0x0b02: "BluetoothPairingStatus", 0x0b03: "StopBluetoothPairing",
        0x5000: "StartNowPlayingUpdates", 0x5001: "NowPlayingUpdate", 0x5002: "StopNowPlayingUpdates",
        0x5003: "SetNowPlayingInformation", 0x5700: "RequestWiFiInformation", 0x5701: "WiFiInformation",
        0x5702: "RequestAccessoryWiFiConfigurationInformation", 0x5703: "AccessoryWiFiConfigurationInformation",
        0x6800: "StartHID", 0x6801: "DeviceHIDReport", 0x6802: "AccessoryHIDReport", 0x6803: "StopHID",
        0x6806: "StartNativeHID", 0xae00: "StartPowerUpdates", 0xae01: "PowerUpdate", 0xae02: "StopPowerUpdates",
        0xae03: "PowerSourceUpdate", 0xfffa: "StartLocationInformation", 0xfffb: "LocationInformation",
        0xfffc: "StopLocationInformation", 0xa100: "StartVehicleStatusUpdates", 0xa101: "VehicleStatusUpdate",
        0xa102: "StopVehicleStatusUpdates",
    ]

    /// The Wi-Fi information sharing messages (0x5700–0x5703): the answers carry a network's SSID
    /// and passphrase.
    public static let wiFiInformationSharing: ClosedRange<UInt16> = 0x5700...0x5703

    static func utf8(_ data: ArraySlice<UInt8>) -> String {
        let end = data.firstIndex(of: 0) ?? data.endIndex
        return String(decoding: data[data.startIndex..<end], as: UTF8.self)
    }
}

/// What IdentificationInformation (0x1D01) says about the accessory, as EAAccessory shows it.
public struct IAP2Identification: Sendable, Equatable {
    public var name = ""
    public var model = ""
    public var manufacturer = ""
    public var serial = ""
    public var firmware = ""
    public var hardware = ""
    /// External Accessory protocols: the accessory's protocol id and the protocol string.
    public var protocols: [(id: UInt8, name: String)] = []

    public static func == (a: IAP2Identification, b: IAP2Identification) -> Bool {
        (a.name, a.model, a.manufacturer, a.serial, a.firmware, a.hardware) == (
            b.name, b.model, b.manufacturer, b.serial, b.firmware, b.hardware
        )
            && a.protocols.elementsEqual(b.protocols) { $0.id == $1.id && $0.name == $1.name }
    }

    init(_ message: IAP2ControlMessage) throws(ShortRead) {
        for (id, data) in message.parameters {
            switch id {
            case 0: name = IAP2ControlMessage.utf8(data)
            case 1: model = IAP2ControlMessage.utf8(data)
            case 2: manufacturer = IAP2ControlMessage.utf8(data)
            case 3: serial = IAP2ControlMessage.utf8(data)
            case 4: firmware = IAP2ControlMessage.utf8(data)
            case 5: hardware = IAP2ControlMessage.utf8(data)
            case 10:
                var group = ByteReader(data)
                var protocolID: UInt8 = 0
                var protocolName = ""
                for (sub, value) in try IAP2ControlMessage.parameters(&group) {
                    var v = ByteReader(value)
                    if sub == 0 { protocolID = try v.u8() }
                    if sub == 1 { protocolName = IAP2ControlMessage.utf8(value) }
                }
                protocols.append((protocolID, protocolName))
            default:
                break
            }
        }
    }
}
