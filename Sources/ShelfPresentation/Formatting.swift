public import Foundation
public import ShelfStore

/// Pure functions that turn store values into the strings screens show.
public enum Formatting {
    /// How long ago `date` was, compactly: "just now", "5m ago", "3h ago", "2d ago", then
    /// "Mar 4" within the year of `now` and "2024-03-04" before. Dates in the future (a
    /// clock skew) read as "just now" up to a minute ahead, else as the date.
    public static func relative(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        if seconds >= -60 && seconds < 60 { return "just now" }
        if seconds > 0 {
            if seconds < 3600 { return "\(Int(seconds / 60))m ago" }
            if seconds < 86_400 { return "\(Int(seconds / 3600))h ago" }
            if seconds < 7 * 86_400 { return "\(Int(seconds / 86_400))d ago" }
        }
        let day = CivilDate(date)
        let month = monthNames[day.month - 1]
        if day.year == CivilDate(now).year { return "\(month) \(day.day)" }
        return TimeFormat.day(date)
    }

    /// A date and time in full, in UTC, for detail screens: "2026-11-22 14:05 UTC"
    /// (`TimeFormat.minute`: proleptic Gregorian, milliseconds rounded as stored). Computed
    /// arithmetically, like `relative`: loading a `Calendar` and its time zone data costs
    /// milliseconds, on the path to the browser's first frame.
    public static func timestamp(_ date: Date) -> String {
        TimeFormat.minute(date)
    }

    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// "!" per priority level: "" for 0, "!!!" for 3.
    public static func priorityMark(_ priority: Int) -> String {
        String(repeating: "!", count: max(0, min(priority, 3)))
    }

    /// The priority in words.
    public static func priorityName(_ priority: Int) -> String {
        switch priority {
        case ...0: "none"
        case 1: "low"
        case 2: "medium"
        default: "high"
        }
    }

    /// "✓" for done, " " for open.
    public static func doneMark(_ status: Item.Status) -> String {
        status == .done ? "✓" : " "
    }

    /// A count with thousands separators: 1234567 → "1,234,567".
    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// `text` as one line of at most `limit` characters, for naming a title or a name inside
    /// a question: line breaks become the visible ␊ and ␍ (a dialog would break its lines
    /// there, and the question's end, "? u undoes it.", fell off its last line), and a longer
    /// text ends in "…", so the rest of the question always shows.
    public static func inline(_ text: String, limit: Int = 80) -> String {
        var line = ""
        for character in text.prefix(limit) {
            switch character {
            case "\n", "\r\n", "\u{2028}", "\u{2029}", "\u{85}", "\u{0B}", "\u{0C}": line.append("␊")
            case "\r": line.append("␍")
            default: line.append(character)
            }
        }
        return text.count > limit ? line + "…" : line
    }

    /// "1 item", "2 items".
    public static func items(_ count: Int) -> String {
        count == 1 ? "1 item" : "\(Self.count(count)) items"
    }

    /// The sort in words: "newest first", "title A–Z", …
    public static func sort(_ field: ItemQuery.SortField, _ direction: ItemQuery.SortDirection) -> String {
        switch (field, direction) {
        case (.created, .descending): "newest first"
        case (.created, .ascending): "oldest first"
        case (.updated, .descending): "recently updated first"
        case (.updated, .ascending): "least recently updated first"
        case (.priority, .descending): "highest priority first"
        case (.priority, .ascending): "lowest priority first"
        case (.title, .ascending): "title A–Z"
        case (.title, .descending): "title Z–A"
        case (.owner, .ascending): "owner A–Z"
        case (.owner, .descending): "owner Z–A"
        }
    }

    /// What a query shows, in words: `“moth” · open · Ada Lovelace · newest first`.
    public static func describe(_ query: ItemQuery, ownerName: String?) -> String {
        var parts: [String] = []
        let text = query.text.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty { parts.append("“\(text)”") }
        if let status = query.status { parts.append(status.rawValue) }
        if query.owner != nil { parts.append(ownerName ?? "one owner") }
        parts.append(sort(query.sortField, query.sortDirection))
        return parts.joined(separator: " · ")
    }
}
