import Testing

@testable import ShelfTerminal

/// A root with a label and a list, whose keys change them or not.
@MainActor
private final class RedrawController: Controller {
    let label = Label("hello")
    let list = ListView()

    override func loadView() {
        let root = StackView(axis: .vertical, [label, list])
        list.length = .flexible()
        view = root
    }

    override func handle(_ event: KeyEvent) -> Bool {
        switch event {
        case .character("a"): label.text = "changed"
        case .character("s"): label.text = label.text  // the same value again
        case .character("c"): list.columns = list.columns  // equal columns again
        case .character("i"): list.scrollIndicator = list.scrollIndicator
        default: return false
        }
        return true
    }
}

/// Rendering does nothing when nothing changed: no layout, no drawing, no output.
@Suite("Redraw economy")
@MainActor
struct RedrawTests {
    @Test func aKeyThatChangesNothingDrawsNothing() {
        let controller = RedrawController()
        let window = Window(rootController: controller, size: Size(width: 20, height: 5))
        defer { window.close() }
        controller.list.columns = [ListColumn("Title", width: .flexible())]
        controller.list.scrollIndicator = (position: 1, total: 10)
        #expect(window.drawIfNeeded() != nil, "the first frame is drawn")
        #expect(window.drawIfNeeded() == nil, "and not again while nothing changes")

        for key in ["s", "c", "i", "z"] {
            window.send(.key(.character(Character(key))))
            #expect(window.drawIfNeeded() == nil, "key \(key) changed nothing on screen")
        }
        #expect(window.drawCount == 1)

        window.send(.key(.character("a")))
        let canvas = window.drawIfNeeded()
        #expect(canvas?.lines.first?.hasPrefix("changed") == true)
        #expect(window.drawCount == 2)
    }

    @Test func aResizeDrawsAndTheSameSizeDoesNot() {
        let controller = RedrawController()
        let window = Window(rootController: controller, size: Size(width: 20, height: 5))
        defer { window.close() }
        _ = window.drawIfNeeded()
        window.resize(to: Size(width: 20, height: 5))
        #expect(window.drawIfNeeded() == nil)
        window.resize(to: Size(width: 30, height: 5))
        #expect(window.drawIfNeeded()?.size == Size(width: 30, height: 5))
    }

    @Test func theRendererWritesNothingForAnUnchangedFrame() {
        let controller = RedrawController()
        let window = Window(rootController: controller, size: Size(width: 20, height: 5))
        defer { window.close() }
        var renderer = Renderer(colorMode: .ansi16)
        #expect(!renderer.render(window.draw()).isEmpty)
        #expect(renderer.render(window.draw()).isEmpty)
    }
}
