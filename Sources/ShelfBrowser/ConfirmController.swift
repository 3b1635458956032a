public import ShelfPresentation
internal import ShelfReactive
public import ShelfTerminal

/// Asks a yes-or-no question in a dialog: y or Enter confirms, n or Esc cancels (or the keys
/// the configuration bound instead, which its hint names).
public final class ConfirmController: Controller, KeyModeReporting {
    private let viewModel: ConfirmViewModel

    public init(viewModel: ConfirmViewModel) {
        self.viewModel = viewModel
        super.init()
    }

    public override func loadView() {
        let message = Label(viewModel.message)
        message.wraps = true
        message.length = .flexible()
        let choices = Label(
            viewModel.choices(yes: Theme.keyHint(.confirm, "yes"), no: Theme.keyHint(.confirm, "no")),
            style: Theme.hint)
        let width = min(70, max(40, DisplayWidth.of(viewModel.message) + 4))
        let dialog = Dialog(
            title: viewModel.title, content: StackView(axis: .vertical, [message, choices]),
            preferredSize: Size(width: width, height: 6))
        view = FittingConfirmView(dialog: dialog, message: viewModel.message)
    }

    var keyModes: [KeyMode] { [.confirm] }

    public override func handle(_ event: KeyEvent) -> Bool {
        switch event {
        case .character("y"), .character("Y"), KeyEvent(.enter): viewModel.confirm()
        case .character("n"), .character("N"), KeyEvent(.escape), .character("q"): viewModel.cancel()
        default: break
        }
        return true  // modal: no key reaches the list behind it
    }
}

/// Holds the question's dialog and, before each layout, makes it as high as the question needs
/// at the width it gets (a 60-column screen wrapped a user's removal over four lines, and the
/// last, "This cannot be undone.", was cut): at least 6 rows, at most the screen.
@MainActor
private final class FittingConfirmView: View {
    let dialog: Dialog
    let message: String
    /// The dialog's width when the screen has room.
    let width: Int

    init(dialog: Dialog, message: String) {
        self.dialog = dialog
        self.message = message
        width = dialog.preferredSize.width
        super.init()
        addSubview(dialog)
    }

    override func layoutSubviews() {
        // Inside the border: the question's lines, then the keys' line.
        let inner = min(width, frame.width) - 2
        let lines = TextLayout.wrap(message, to: inner, maxLines: max(1, frame.height)).count
        dialog.preferredSize = Size(width: width, height: max(6, lines + 3))
        super.layoutSubviews()
    }
}
