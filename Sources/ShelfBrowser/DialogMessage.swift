internal import Foundation
internal import ShelfTerminal

/// A dialog's message (the item editor's or the user form's failure), shown whole when the
/// screen has the rows: it takes as many rows as it needs at the dialog's width, at least
/// `least`, at most half the screen and never more than the dialog can grow by. Cut, it keeps
/// its last sentence, the advice ("… then retry"), and cuts its middle (hostile round 11: at
/// 200×60 the editor showed three lines and the advice was never seen).
@MainActor
struct DialogMessage {
    /// The rows the message has when it needs no more.
    let least: Int
    /// The rows the dialog has (its preferred height) with the message at `least`.
    let dialogHeight: Int

    /// The rows `text` gets in a dialog `room.width` wide (its border takes one column each
    /// side) on a screen `room.height` rows high.
    func rows(for text: String, room: Size) -> Int {
        let needed = TextLayout.wrap(Sanitizer.sanitize(text), to: max(1, room.width - 2)).count
        let most = max(least, min(room.height / 2, least + room.height - dialogHeight))
        return max(least, min(needed, most))
    }

    /// `text` wrapped to `width` in at most `rows` lines: whole when it fits, else its start
    /// ending in "…" and then its last sentence (the advice), whole when it fits in the rows
    /// but one.
    static func fit(_ text: String, width: Int, rows: Int) -> String {
        let clean = Sanitizer.sanitize(text)
        let lines = TextLayout.wrap(clean, to: max(1, width))
        guard lines.count > rows, rows > 0 else { return lines.joined(separator: "\n") }
        let advice = lastSentence(of: clean).map { TextLayout.wrap($0, to: max(1, width)) } ?? []
        let tail = advice.count < rows ? advice : []
        var head = Array(TextLayout.wrap(clean, to: max(1, width), maxLines: rows - tail.count))
        if let last = head.popLast() {
            let marked = last + " …"
            head.append(DisplayWidth.of(marked) <= width ? marked : TextLayout.truncate(last + "……", to: width))
        }
        return (head + tail).joined(separator: "\n")
    }

    /// The last sentence of `text` (after the last ". " or "; "), or
    /// nil when it has one sentence.
    static func lastSentence(of text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let starts = [". ", "; "].compactMap { trimmed.range(of: $0, options: .backwards)?.upperBound }
        guard let start = starts.max(), start < trimmed.endIndex else { return nil }
        return String(trimmed[start...])
    }
}
