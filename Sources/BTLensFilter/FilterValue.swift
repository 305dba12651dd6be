/// A value an event holds under a name, as JSONL writes it: a number, a string, bytes (hex in JSON),
/// true or false, several values (an array), or a group of values (an object, which only a test of
/// presence reads).
enum FilterValue {
    case int(Int64)
    case number(Double)
    case string(String)
    case bytes(ArraySlice<UInt8>)
    case bool(Bool)
    case list([FilterValue])
    case object
}
