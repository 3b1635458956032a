import Testing

@testable import ShelfTerminal

@Suite("Canvas")
struct CanvasTests {
    @Test(
        "display widths",
        arguments: [
            ("a", 1), ("é", 1), ("e\u{301}", 1), ("日本", 4), ("한", 2), ("🙂", 2), ("👩‍💻", 2), ("🇫🇷", 2),
            ("\u{200B}", 0), ("☺\u{FE0F}", 2), ("☺", 1), ("ｗ", 2), ("", 0),
        ])
    func widths(_ text: String, _ width: Int) {
        #expect(DisplayWidth.of(text) == width)
    }

    @Test func truncatesByDisplayWidthWithEllipsis() {
        #expect(TextLayout.truncate("hello world", to: 5) == "hell…")
        #expect(TextLayout.truncate("hello", to: 5) == "hello")
        #expect(TextLayout.truncate("日本語テキスト", to: 7) == "日本語…")
        #expect(TextLayout.truncate("日本語テキスト", to: 6) == "日本…")
        #expect(TextLayout.truncate("abc", to: 1) == "…")
        #expect(TextLayout.truncate("abc", to: 0) == "")
        #expect(DisplayWidth.of(TextLayout.pad("日本", to: 7)) == 7)
    }

    @Test func wideCharactersTakeTwoCells() {
        var canvas = Canvas(size: Size(width: 6, height: 1))
        canvas.draw("a日b", at: .zero)
        #expect(canvas.line(0) == "a日b  ")
        #expect(canvas[1, 0].text == "日")
        #expect(canvas[2, 0].isContinuation)
    }

    @Test func overwritingHalfAWideCharacterLeavesNoHalf() {
        var canvas = Canvas(size: Size(width: 4, height: 1))
        canvas.draw("日本", at: .zero)
        canvas.draw("x", at: Point(x: 1, y: 0))
        #expect(canvas.line(0) == " x本")
        canvas.draw("y", at: Point(x: 2, y: 0))
        #expect(canvas.line(0) == " xy ")
    }

    @Test func wideCharacterCutByTheEdgeShowsABlank() {
        var canvas = Canvas(size: Size(width: 3, height: 1))
        canvas.draw("ab日", at: .zero, width: 3)
        #expect(canvas.line(0) == "ab…")
        canvas = Canvas(size: Size(width: 3, height: 1))
        canvas.withClip(Rect(x: 1, y: 0, width: 2, height: 1)) { canvas in
            canvas.draw("日x", at: Point(x: 0, y: 0))
        }
        #expect(canvas.line(0) == "  x")
    }

    @Test(
        "controls and escape sequences become visible placeholders",
        arguments: [
            ("a\u{1B}[2Jb", "a␛[2Jb"), ("title\u{1B}]0;pwned\u{07}", "title␛]0;pwned␇"), ("tab\there", "tab␉here"),
            ("line\nbreak", "line␊break"), ("del\u{7F}", "del␡"), ("c1\u{9B}31m", "c1�31m"), ("rtl\u{202E}x", "rtl�x"),
            ("nul\u{0}", "nul␀"), ("plain", "plain"),
        ])
    func sanitizes(_ input: String, _ shown: String) {
        var canvas = Canvas(size: Size(width: 30, height: 1))
        canvas.draw(input, at: .zero)
        #expect(canvas.line(0).trimmingSuffix() == shown)
        #expect(!canvas.line(0).unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
    }

    @Test func clipLimitsDrawing() {
        var canvas = Canvas(size: Size(width: 10, height: 3))
        canvas.withClip(Rect(x: 2, y: 1, width: 3, height: 1)) { canvas in
            canvas.fill(Rect(x: 0, y: 0, width: 10, height: 3), style: Style(attributes: .bold))
            canvas.draw("a", at: Point(x: 2, y: 1))
            canvas.draw("zzz", at: Point(x: 2, y: 2))
        }
        #expect(canvas.lines == ["          ", "  a       ", "          "])
        #expect(canvas[1, 1].style == .plain)
        #expect(canvas[2, 1].style == Style.plain)
        #expect(canvas[4, 1].style.attributes == .bold)
    }

    /// A label shows only the lines that fit, so it lays out only those: 5 MB of notes took
    /// the detail pane a second or two per draw when all of them were wrapped.
    @Test func wrappingStopsAtTheLinesAsked() {
        let text = "the quick brown fox\njumps over\n\nthe lazy dog"
        let all = TextLayout.wrap(text, to: 10)
        for count in 0...(all.count + 1) {
            #expect(TextLayout.wrap(text, to: 10, maxLines: count) == Array(all.prefix(count)), "\(count)")
        }
        #expect(TextLayout.wrap("abcdefghij klm", to: 4, maxLines: 2) == ["abcd", "efgh"])
        let huge = String(repeating: String(repeating: "w", count: 99) + "\n", count: 52_000)
        let started = ContinuousClock.now
        let lines = TextLayout.wrap(huge, to: 46, maxLines: 25)
        #expect(lines.count == 25 && lines[0].count == 46 && lines[2] == "wwwwwww")
        #expect(ContinuousClock.now - started < .milliseconds(500), "the first lines of 5 MB, not all of it")
    }

    @Test func wrapsAtWords() {
        #expect(TextLayout.wrap("the quick brown fox", to: 10) == ["the quick", "brown fox"])
        #expect(TextLayout.wrap("abcdefghij klm", to: 4) == ["abcd", "efgh", "ij", "klm"])
        #expect(TextLayout.wrap("a\n\nb", to: 4) == ["a", "", "b"])
        #expect(TextLayout.wrap("日本語テキスト", to: 5) == ["日本", "語テ", "キス", "ト"])
    }

    @Test func stackDistributesFixedMinimumAndFlexible() {
        #expect(StackView.distribute(20, among: [.fixed(3), .flexible(), .fixed(1)]) == [3, 16, 1])
        #expect(StackView.distribute(10, among: [.flexible(1), .flexible(2), .flexible(1)]) == [2, 5, 3])
        #expect(StackView.distribute(10, among: [.minimum(4), .flexible()]) == [7, 3])
        #expect(StackView.distribute(3, among: [.fixed(2), .fixed(2)]) == [2, 2])
        #expect(StackView.distribute(7, among: [.flexible(), .flexible(), .flexible()]).reduce(0, +) == 7)
    }
}

extension String {
    func trimmingSuffix() -> String { String(reversed().drop { $0 == " " }.reversed()) }
}
