import BTLensCore
import BTLensDissect

extension JSONWriter {
    /// An iAP2 accessory as IdentificationInformation describes it: the same fields in JSONL and stats.
    mutating func identification(_ i: IAP2Identification) {
        for (k, v) in [
            ("name", i.name), ("model", i.model), ("manufacturer", i.manufacturer), ("serial", i.serial),
            ("firmware", i.firmware), ("hardware", i.hardware),
        ] { field(named: k, v) }
        key("protocols")
        beginArray()
        for p in i.protocols {
            beginObject()
            field("id", p.id)
            field("name", p.name)
            endObject()
        }
        endArray()
    }
}
