import BTLensCore

/// Names of Bluetooth SIG UUIDs (Assigned Numbers): services, characteristics, descriptors, declarations.
public enum GATTNames {
    public static func name(_ uuid: BluetoothUUID) -> String? {
        guard let v = uuid.sig16 else { return nil }
        return names[v]
    }

    /// Characteristics whose value is a UTF-8 string, shown as text.
    public static let stringCharacteristics: Set<UInt16> = [0x2a00, 0x2a24, 0x2a25, 0x2a26, 0x2a27, 0x2a28, 0x2a29]

    public static let primaryService: UInt16 = 0x2800
    public static let secondaryService: UInt16 = 0x2801
    public static let include: UInt16 = 0x2802
    public static let characteristic: UInt16 = 0x2803
    public static let clientCharacteristicConfiguration: UInt16 = 0x2902
    public static let deviceName: UInt16 = 0x2a00

    static let names: [UInt16: String] = [
        0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x1802: "Immediate Alert", 0x1803: "Link Loss",
        0x1804: "Tx Power", 0x1805: "Current Time", 0x180a: "Device Information", 0x180d: "Heart Rate",
        0x180f: "Battery", 0x1812: "Human Interface Device", 0x1813: "Scan Parameters", 0x181c: "User Data",
        0x1822: "Pulse Oximeter", 0x1826: "Fitness Machine", 0x184e: "Audio Stream Control",
        0x2800: "Primary Service", 0x2801: "Secondary Service", 0x2802: "Include", 0x2803: "Characteristic",
        0x2900: "Characteristic Extended Properties", 0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration", 0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format", 0x2905: "Characteristic Aggregate Format",
        0x2908: "Report Reference",
        0x2a00: "Device Name", 0x2a01: "Appearance", 0x2a02: "Peripheral Privacy Flag", 0x2a03: "Reconnection Address",
        0x2a04: "Peripheral Preferred Connection Parameters", 0x2a05: "Service Changed", 0x2a06: "Alert Level",
        0x2a07: "Tx Power Level", 0x2a19: "Battery Level", 0x2a23: "System ID", 0x2a24: "Model Number String",
        0x2a25: "Serial Number String", 0x2a26: "Firmware Revision String", 0x2a27: "Hardware Revision String",
        0x2a28: "Software Revision String", 0x2a29: "Manufacturer Name String",
        0x2a2a: "IEEE 11073-20601 Regulatory Certification Data List", 0x2a37: "Heart Rate Measurement",
        0x2a4a: "HID Information", 0x2a4b: "Report Map", 0x2a4c: "HID Control Point", 0x2a4d: "Report",
        0x2a4e: "Protocol Mode", 0x2a50: "PnP ID", 0x2aa6: "Central Address Resolution",
        0x2ac9: "Resolvable Private Address Only", 0x2b29: "Client Supported Features", 0x2b2a: "Database Hash",
        0x2b3a: "Server Supported Features",
    ]
}
