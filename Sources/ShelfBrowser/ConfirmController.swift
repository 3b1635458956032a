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
        view = Dialog(
            title: viewModel.title, content: StackView(axis: .vertical, [message, choices]),
            preferredSize: Size(width: width, height: 6))
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
