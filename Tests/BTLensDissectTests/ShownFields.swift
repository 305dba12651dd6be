import BTLensCore

/// Decoded fields as the JSONL writes each: `key=value`, for comparing with the specification's values.
func shown(_ fields: [(String, FieldValue)]?) -> [String] {
    (fields ?? []).map { key, value in
        switch value {
        case .int(let v), .hex(let v, _): "\(key)=\(v)"
        case .string(let s): "\(key)=\(s)"
        case .bool(let b): "\(key)=\(b)"
        case .bytes(let b): "\(key)=\(Hex.string(b))"
        case .decimal(let units, let scale): "\(key)=\(FieldValue.decimalText(units, scale: scale))"
        }
    }
}
