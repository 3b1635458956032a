/// The distinct failures a browser said (`ItemActions.failures`), in the order each was last
/// said, the last `limit`; one said again is folded into one entry and counted (hostile round
/// 11: twenty identical copy failures pushed the one distinct failure out).
struct FailureLog {
    /// The most failures kept.
    static let limit = 20

    /// A failure kept, and how many times it was said.
    private struct Entry {
        let text: String
        let count: Int
    }

    private var entries: [Entry] = []
    /// Distinct failures said before the ones kept.
    private(set) var dropped = 0

    /// Keeps `text`: moved to the end and counted when said before; else added, the oldest
    /// dropped past `limit`.
    mutating func keep(_ text: String) {
        if let index = entries.firstIndex(where: { $0.text == text }) {
            let count = entries.remove(at: index).count
            entries.append(Entry(text: text, count: count + 1))
            return
        }
        if entries.count == Self.limit {
            entries.removeFirst()
            dropped += 1
        }
        entries.append(Entry(text: text, count: 1))
    }

    /// Each failure kept; one said more than once ends in its count, "(×40)".
    var texts: [String] {
        entries.map { $0.count > 1 ? "\($0.text) (×\($0.count))" : $0.text }
    }
}
