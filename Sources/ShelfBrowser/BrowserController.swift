public import ShelfPresentation
internal import ShelfReactive
internal import ShelfStore
public import ShelfTerminal

/// The browser's root: the item list with the selected item's detail beside it (or below,
/// or hidden when the screen is small), a status bar, and modal dialogs for the editor,
/// confirmations and help.
///
/// Children come and go by containment in the three steps. The detail pane follows the
/// selection once it rests (a short pause), so scrolling fast reads nothing but the list.
public final class BrowserController: Controller {
    let viewModel: BrowserViewModel

    let listController: ItemListController
    private let detailContainer = View()
    private let placeholder = Label("No item selected.", style: Theme.hint)
    let statusBar = StatusBar(style: Theme.status)
    private let listContainer = View()
    lazy var split = SplitView(listContainer, detailContainer)
    private let root = BrowserRootView()

    private var detailController: ItemDetailController?
    private var detailID: Item.ID?
    private var pendingDetail: Task<Void, Never>?
    private var modal: Controller?
    /// True while a dialog (editor, prompt, question, help, users, views) is shown.
    var hasModal: Bool { modal != nil }
    var modalObservation: Observation?
    /// Where copies go (`y`, `Y`): the terminal's clipboard or a file; tests set their own.
    public var clipboard = BrowserController.systemClipboard()

    /// How long the selection must rest before the detail pane follows it.
    static let detailDelay: Duration = .milliseconds(80)

    /// The keys, colours and columns in force, and what was wrong in their file.
    let configuration: BrowserConfiguration
    /// The first problem of the configuration file, in the status bar until the first key.
    var configurationNotice: String?

    /// A browser of `viewModel` with `configuration`'s keys, colours and columns (the colours
    /// become the styles of every browser made afterwards in this process).
    public init(viewModel: BrowserViewModel, configuration: BrowserConfiguration = BrowserConfiguration()) {
        self.viewModel = viewModel
        self.configuration = configuration
        Theme.palette = configuration.palette
        Theme.keys = configuration.keys
        listController = ItemListController(viewModel: viewModel.list, columns: configuration.columns)
        if let first = configuration.problems.first {
            let more = configuration.problems.count - 1
            configurationNotice = first.description + (more > 0 ? " (+\(more) more after quitting)" : "")
        }
        super.init()
    }

    /// The most lines the status bar takes for an action's message too long for one (such as
    /// why a copy failed), until the next key (the configuration file's first problem keeps
    /// one line, cut with where to read it whole: hostile round 12, it wrapped and pushed the
    /// list up):
    /// up to half the screen (`BrowserRootView`), at least 3. Hostile round 8: at 80 columns
    /// three lines cut a copy's failure before the `sqlite3 … UPDATE` that fixes it.
    static let messageLines = Int.max
    /// The fewest lines a message may take, however short the screen.
    static let leastMessageLines = 3

    public override func loadView() {
        detailContainer.addSubview(placeholder)
        let body = StackView(axis: .vertical, [split, statusBar])
        split.length = .flexible()
        root.addSubview(body)
        root.statusBar = statusBar
        view = root
    }

    public override func viewDidLoad() {
        addChild(listController)
        listContainer.addSubview(listController.view)
        listController.didMove(toParent: self)
        focusedChild = listController
        listController.onKeyModesChange = { [weak self] in self?.showStatusHints() }
        // A new message is read whole (over more lines when it needs them) until the next key.
        viewModel.actions.message.bind(during: lifetime) { [weak self] message in
            if message != nil { self?.statusBar.maximumLines = Self.messageLines }
        }
        // A message cut at the bar's end says where it is read whole.
        statusBar.cutMark = " … \(Theme.keyNames("list.help", "?")) shows it whole"
        viewModel.list.state.bind(during: lifetime) { [weak self] state in
            self?.keepListFailure(state)
            self?.render(state)
        }
        bindMarks(list: listController) { [weak self] in self.map { $0.render($0.viewModel.list.state.value) } }
        viewModel.list.load()
        refreshTimes()
    }

    /// How often the list's relative times ("26m ago") are formatted again.
    var timeRefreshInterval: Duration = .seconds(5)
    /// Formats the relative times again every `timeRefreshInterval` while the browser lives.
    private var timeRefresh: Task<Void, Never>?

    private func refreshTimes() {
        timeRefresh = Task { [weak self] in
            while !Task.isCancelled {
                guard let interval = self?.timeRefreshInterval else { return }
                try? await Task.sleep(for: interval)
                self?.viewModel.list.refreshRelativeTimes()
            }
        }
    }

    public override func viewDidDisappear() {
        timeRefresh?.cancel()
    }

    /// The list's read failure last kept, while the list shows it.
    private var keptListFailure: String?

    /// A new read failure of the list (the file deleted under the browser, a read refused) is
    /// kept with the other failures, for `?` and the stderr repeat (hostile round 11: neither
    /// had it). The list shows it whole above; the bar keeps its one line.
    private func keepListFailure(_ state: ViewState<ItemListContent>) {
        guard let failure = state.failure else {
            keptListFailure = nil
            return
        }
        guard failure.message != keptListFailure else { return }
        keptListFailure = failure.message
        viewModel.actions.keepFailure(failure.message)
    }

    // MARK: - Rendering

    func render(_ state: ViewState<ItemListContent>) {
        statusBar.left = configurationNotice.map { $0 + " · " + viewModel.statusText } ?? viewModel.statusText
        // The list's read failure is kept for `?` (keepListFailure), and the configuration's
        // problems are listed there: cut, the bar says so.
        statusBar.marksOneLineCut = state.failure != nil || configurationNotice != nil
        showStatusHints()
        followSelection(state.value?.selectedID)
    }

    /// Shows the detail of `id` once the selection has rested.
    private func followSelection(_ id: Item.ID?) {
        guard id != detailID else {
            pendingDetail?.cancel()
            return
        }
        pendingDetail?.cancel()
        let immediately = detailController == nil
        pendingDetail = Task { [weak self] in
            if !immediately { try? await Task.sleep(for: Self.detailDelay) }
            guard !Task.isCancelled else { return }
            self?.showDetail(id)
        }
    }

    /// Shows the detail of `id` (nothing when nil): a preview of long notes, or all of them
    /// when `wholeNotes` is true.
    private func showDetail(_ id: Item.ID?, wholeNotes: Bool = false) {
        detailID = id
        if let old = detailController {
            old.viewModel.cancel()  // a read still running for the item left is of no use
            old.willMove(toParent: nil)
            old.view.removeFromSuperview()
            old.removeFromParent()
            detailController = nil
        }
        placeholder.isHidden = id != nil
        guard let id else { return }
        let detail = ItemDetailController(viewModel: viewModel.makeDetailViewModel(id: id, wholeNotes: wholeNotes))
        addChild(detail)
        detailContainer.addSubview(detail.view)
        detail.didMove(toParent: self)
        detailController = detail
    }

    // MARK: - Modals

    func present(_ controller: Controller) {
        dismissModal()
        addChild(controller)
        root.addSubview(controller.view)
        controller.didMove(toParent: self)
        modal = controller
        focusedChild = controller
        showStatusHints()
    }

    func dismissModal() {
        modalObservation?.cancel()
        modalObservation = nil
        guard let modal else { return }
        modal.willMove(toParent: nil)
        modal.view.removeFromSuperview()
        modal.removeFromParent()
        self.modal = nil
        focusedChild = listController
        showStatusHints()
    }

    /// Keys typed between `n`/`e` and the editor showing (it reads its item first), or between
    /// `d`/`o`/`p` on marked items and their prompt showing (the marks are checked first); nil
    /// when nothing is opening.
    var typedAhead: [KeyEvent]?

    /// Gives the keys typed while the editor or a prompt opened to it, in order, as if typed
    /// now.
    func replayTypedAhead() {
        let keys = typedAhead ?? []
        typedAhead = nil
        for typed in keys {
            // Typed for the editor or prompt: its keys apply, not the list's.
            guard let key = translate(typed, for: firstResponder) else { continue }
            var responder: Controller? = firstResponder
            while let current = responder, !current.handle(key) {
                responder = current === self ? nil : current.parent
            }
        }
    }

    private func presentEditor(_ editor: ItemEditorViewModel) {
        let controller = ItemEditorController(viewModel: editor)
        controller.onFailure = { [weak self] text in self?.viewModel.actions.keepFailure(text) }
        present(controller)
        modalObservation = editor.state.bind(during: lifetime) { [weak self] content in
            guard case .saved(let id) = content.phase, let self else { return }
            let actions = viewModel.actions
            if let write = editor.lastWrite { actions.enqueue { await actions.editorSaved(write) } }
            dismissModal()
            viewModel.list.select(id: id)
        }
    }

    private func presentUsers() {
        let users = UserListController(viewModel: viewModel.makeUserList())
        users.onClose = { [weak self] in self?.dismissModal() }
        users.onFailure = { [weak self] text in self?.viewModel.actions.keepFailure(text) }
        users.onShowItems = { [weak self] id in
            self?.dismissModal()
            self?.viewModel.list.filter(owner: id)
        }
        present(users)
    }

    // MARK: - Keys

    /// Back from the item opened on the whole screen to the list beside it.
    func closeFullScreenDetail() {
        split.mode = .automatic
        showStatusHints()
        // Beside the list again: a preview of the notes, as for every selection.
        if detailController?.viewModel.wholeNotes == true { showDetail(detailID) }
    }

    /// Every key passes here first (see `translateKey(_:for:)`).
    public override func translate(_ event: KeyEvent, for responder: Controller) -> KeyEvent? {
        translateKey(event, for: responder)
    }

    public override func handle(_ event: KeyEvent) -> Bool {
        // Typed while an editor opens: the keys are the editor's, not the list's.
        if typedAhead != nil {
            typedAhead?.append(event)
            return true
        }
        if modal != nil {
            // Keys the dialog passed on: Esc and Ctrl-C close it.
            if event == KeyEvent(.escape) || event == .control("c") {
                dismissModal()
                return true
            }
            return false
        }
        let action = KeyBindings.action(for: event)
        if split.mode == .secondOnly, action == .open || action == .clearSearch || action == .quit {
            closeFullScreenDetail()
            return true
        }
        let selectedRow = viewModel.list.selectedRow
        // Marks, bulk actions (delete too, of the marked items or the selected one), undo, copy.
        if let action, handleBulk(action, selected: selectedRow) { return true }
        switch action {
        case .open:
            guard selectedRow != nil else { return true }
            // Opened on purpose: the notes whole, read now (the pane beside the list holds a
            // preview of long ones).
            if let id = selectedRow?.id, id != detailID || detailController?.viewModel.wholeNotes != true {
                pendingDetail?.cancel()
                showDetail(id, wholeNotes: true)
            }
            split.mode = .secondOnly
            showStatusHints()
        case .new:
            typedAhead = []
            viewModel.openNewItemEditor { [weak self] editor in
                self?.presentEditor(editor)
                self?.replayTypedAhead()
            }
        case .edit:
            guard let id = selectedRow?.id else { return true }
            typedAhead = []
            viewModel.openEditor(id: id) { [weak self] editor in
                guard let self else { return }
                guard let editor else {
                    typedAhead = nil  // the item is gone: what was typed for it goes too
                    return
                }
                presentEditor(editor)
                replayTypedAhead()
            }
        case .help:
            present(
                HelpController(
                    viewModel: HelpViewModel(keys: configuration.keys),
                    messages: viewModel.actions.failures.reversed(),
                    problems: configuration.problems.map(\.fullDescription)))
        case .users:
            presentUsers()
        case .savedViews:
            presentSavedViews()
        case .saveView:
            presentSaveViewPrompt()
        case .quit:
            quitApplication()
        default:
            return false
        }
        return true
    }
}

/// The browser's root: before its subviews are laid out, gives the status bar the lines its
/// text needs at the screen's width (`StatusBar.lineCount(width:)`).
@MainActor
private final class BrowserRootView: View {
    weak var statusBar: StatusBar?

    override func layoutSubviews() {
        if let statusBar {
            let most = max(BrowserController.leastMessageLines, frame.height / 2)
            let lines = min(most, statusBar.lineCount(width: frame.width))
            if statusBar.length != .fixed(lines) { statusBar.length = .fixed(lines) }
        }
        super.layoutSubviews()
    }
}
