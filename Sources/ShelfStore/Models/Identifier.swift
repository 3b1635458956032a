/// A typed row ID: `User.ID` and `Item.ID` are different types, so one cannot be passed
/// where the other is expected. The raw value is the SQLite rowid.
public struct Identifier<Entity>: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    CustomStringConvertible
{
    /// The rowid.
    public let rawValue: Int64

    /// The ID with rowid `rawValue`.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// The ID with rowid `rawValue`.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Decodes a bare integer.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    /// Encodes a bare integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Orders by raw value, which is insertion order for IDs the store assigns.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The ID as people see it: "#42".
    public var description: String { "#\(rawValue)" }
}
