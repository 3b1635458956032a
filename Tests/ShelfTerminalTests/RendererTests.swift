import Testing

@testable import ShelfTerminal

@Suite("Renderer")
struct RendererTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private func canvas(_ lines: [String], width: Int = 10) -> Canvas {
        var canvas = Canvas(size: Size(width: width, height: lines.count))
        for (y, line) in lines.enumerated() { canvas.draw(line, at: Point(x: 0, y: y)) }
        return canvas
    }

    @Test func firstFrameClearsAndDrawsInOneSynchronizedUpdate() {
        var renderer = Renderer(colorMode: .ansi16)
        let output = text(renderer.render(canvas(["hi", "", "yo"])))
        #expect(output.hasPrefix("\u{1B}[?2026h\u{1B}[0m\u{1B}[H\u{1B}[2J"))
        #expect(output.hasSuffix("\u{1B}[?2026l"))
        #expect(output.contains("\u{1B}[1;1Hhi"))
        #expect(output.contains("\u{1B}[3;1Hyo"))
    }

    @Test func unchangedFrameWritesNothing() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["hello"]))
        #expect(renderer.render(canvas(["hello"])).isEmpty)
    }

    @Test func onlyChangedCellsAreWritten() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["hello world", "second"], width: 12))
        let output = text(renderer.render(canvas(["hello World", "second"], width: 12)))
        #expect(output == "\u{1B}[?2026h\u{1B}[1;7HW\u{1B}[?2026l")
    }

    @Test func shortGapsOnALineUseCursorForward() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["abcdefgh"]))
        let output = text(renderer.render(canvas(["Xbcdefgh"].map { $0.replacing("h", with: "H") })))
        #expect(output == "\u{1B}[?2026h\u{1B}[1;1HX\u{1B}[6CH\u{1B}[?2026l")
    }

    @Test func stylesAreSentOnlyWhenTheyChange() {
        var renderer = Renderer(colorMode: .ansi16)
        var frame = Canvas(size: Size(width: 6, height: 1))
        frame.draw("abc", at: .zero, style: Style(foreground: .red, attributes: .bold))
        frame.draw("def", at: Point(x: 3, y: 0), style: Style(foreground: .red, attributes: .bold))
        let output = text(renderer.render(frame))
        #expect(output.ranges(of: "\u{1B}[0;1;31m").count == 1)
        #expect(output.contains("\u{1B}[0;1;31mabcdef\u{1B}[0m"))
    }

    @Test func colourModes() {
        let style = Style(foreground: .rgb(255, 0, 0), background: .indexed(21))
        func rendered(_ mode: Renderer.ColorMode) -> String {
            var renderer = Renderer(colorMode: mode)
            var frame = Canvas(size: Size(width: 1, height: 1))
            frame.draw("x", at: .zero, style: style.with(.reverse))
            return text(renderer.render(frame))
        }
        #expect(rendered(.truecolor).contains("\u{1B}[0;7;38;2;255;0;0;48;5;21mx"))
        #expect(rendered(.indexed256).contains("\u{1B}[0;7;38;5;196;48;5;21mx"))
        #expect(rendered(.ansi16).contains("\u{1B}[0;7;91;104mx"))
        #expect(rendered(.monochrome).contains("\u{1B}[0;7mx"))
    }

    @Test func colourModeFromEnvironment() {
        #expect(Renderer.ColorMode.detect(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"]) == .monochrome)
        #expect(Renderer.ColorMode.detect(environment: ["NO_COLOR": "", "COLORTERM": "truecolor"]) == .truecolor)
        #expect(Renderer.ColorMode.detect(environment: ["TERM": "xterm-256color"]) == .indexed256)
        #expect(Renderer.ColorMode.detect(environment: ["TERM": "xterm"]) == .ansi16)
    }

    @Test func cursorShowsWhereAskedAndHidesAgain() {
        var renderer = Renderer(colorMode: .ansi16)
        var frame = canvas(["abc"])
        frame.cursor = Point(x: 2, y: 0)
        let shown = text(renderer.render(frame))
        #expect(shown.contains("\u{1B}[1;3H\u{1B}[?25h"))
        frame.cursor = nil
        #expect(text(renderer.render(frame)) == "\u{1B}[?2026h\u{1B}[?25l\u{1B}[?2026l")
    }

    @Test func invalidateRedrawsEverything() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["abc"]))
        renderer.invalidate()
        #expect(text(renderer.render(canvas(["abc"]))).contains("\u{1B}[2J"))
    }

    @Test func wideCharactersAdvanceTwoColumns() {
        var renderer = Renderer(colorMode: .ansi16)
        _ = renderer.render(canvas(["日本 ab"]))
        let output = text(renderer.render(canvas(["日本 aB"])))
        #expect(output == "\u{1B}[?2026h\u{1B}[1;7HB\u{1B}[?2026l")
    }

    @Test func dataCannotReachTheTerminalAsControls() {
        var renderer = Renderer(colorMode: .truecolor)
        let output = renderer.render(canvas(["\u{1B}]0;x\u{07}\u{1B}[31m"], width: 20))
        let body = text(output).replacing(/\x{1B}\[[0-9;?]*[A-Za-z]/, with: "")
        #expect(!body.unicodeScalars.contains { $0.value < 0x20 })
    }
}
