//! Driving a panel section in the tests as a user would: an egui context
//! with no window, whose widgets are found by their accessible labels
//! (egui's AccessKit tree, with each widget's bounds) and clicked with
//! pointer events at their rectangles.

use egui::accesskit::{Node, Role};

/// An egui context running one section per frame.
pub struct Harness {
    ctx: egui::Context,
    /// The widgets of the last frame.
    nodes: Vec<Node>,
}

impl Harness {
    pub fn new() -> Self {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        Self {
            ctx,
            nodes: Vec::new(),
        }
    }

    /// Runs one frame of `ui` with `events`, keeping its widgets.
    pub fn frame(&mut self, events: Vec<egui::Event>, mut section: impl FnMut(&mut egui::Ui)) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(420.0, 900.0),
            )),
            events,
            ..Default::default()
        };
        let output = self.ctx.run_ui(input, |root| {
            egui::CentralPanel::default_margins().show(root, |ui| section(ui));
        });
        let mut output = output;
        if let Some(update) = output.platform_output.accesskit_update.take() {
            self.nodes = update.nodes.into_iter().map(|(_, n)| n).collect();
        }
        // No renderer takes the font textures here.
        output.textures_delta.clear();
    }

    /// Runs a frame with no input (the widgets settle).
    pub fn show(&mut self, ui: impl FnMut(&mut egui::Ui)) {
        self.frame(Vec::new(), ui);
    }

    /// The widget labelled `label` (exactly, or showing it as its value,
    /// as a combo box shows its choice), if the last frame showed one; a
    /// widget before a plain text.
    pub fn find(&self, label: &str) -> Option<&Node> {
        let named = |n: &&Node| n.label() == Some(label) || n.value() == Some(label);
        let text = |n: &&Node| matches!(n.role(), Role::Label | Role::TextRun);
        self.nodes
            .iter()
            .filter(named)
            .find(|n| !text(n))
            .or_else(|| self.nodes.iter().find(named))
    }

    /// Whether some text or widget of the last frame contains `text`.
    pub fn shows(&self, text: &str) -> bool {
        self.nodes.iter().any(|n| {
            n.label().is_some_and(|l| l.contains(text))
                || n.value().is_some_and(|v| v.contains(text))
        })
    }

    /// A point `fraction` of the way across the widget `node` (0 = left
    /// edge, 1 = right edge), half-way down.
    fn point(node: &Node, fraction: f32) -> egui::Pos2 {
        let r = node.bounds().expect("egui gives widgets bounds");
        let x = r.x0 + (r.x1 - r.x0) * fraction as f64;
        egui::pos2(x as f32, ((r.y0 + r.y1) * 0.5) as f32)
    }

    /// The widget labelled `label`, or a panic listing what there is.
    fn expect(&self, label: &str) -> &Node {
        self.find(label)
            .unwrap_or_else(|| panic!("no widget labelled {label:?} in {:?}", self.labels()))
    }

    /// Whether some text or widget of the last frame is exactly `text`.
    pub fn shows_exactly(&self, text: &str) -> bool {
        self.nodes
            .iter()
            .any(|n| n.label() == Some(text) || n.value() == Some(text))
    }

    /// Every label the last frame showed (for failure messages).
    pub fn labels(&self) -> Vec<String> {
        self.nodes
            .iter()
            .filter(|n| n.label().is_some() || n.value().is_some())
            .map(|n| format!("{:?} {:?} {:?}", n.role(), n.label(), n.value()))
            .collect()
    }

    /// Clicks the widget labelled `label` at `fraction` of its width.
    pub fn click_at(&mut self, label: &str, fraction: f32, ui: impl FnMut(&mut egui::Ui)) {
        let pos = Self::point(self.expect(label), fraction);
        self.click_pos(pos, ui);
    }

    /// Clicks the `n`th slider from the top at `fraction`
    /// of its rail.
    pub fn click_slider_at(&mut self, n: usize, fraction: f32, ui: impl FnMut(&mut egui::Ui)) {
        // The nodes come in no particular order: count from the top.
        let mut sliders: Vec<&Node> = self
            .nodes
            .iter()
            .filter(|node| node.role() == Role::Slider)
            .collect();
        sliders.sort_by(|a, b| {
            let y = |n: &Node| n.bounds().map_or(0.0, |r| r.y0);
            y(a).total_cmp(&y(b))
        });
        let slider = sliders
            .get(n)
            .copied()
            .unwrap_or_else(|| panic!("no slider {n} in {:?}", self.labels()));
        let pos = Self::point(slider, fraction);
        self.click_pos(pos, ui);
    }

    /// A click at `pos` over three frames (move, press, release), then a
    /// frame to settle.
    fn click_pos(&mut self, pos: egui::Pos2, mut ui: impl FnMut(&mut egui::Ui)) {
        let button = |pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        self.frame(vec![egui::Event::PointerMoved(pos)], &mut ui);
        self.frame(vec![button(true)], &mut ui);
        self.frame(vec![button(false)], &mut ui);
        self.show(ui);
    }

    /// Clicks the middle of the widget labelled `label`.
    pub fn click(&mut self, label: &str, ui: impl FnMut(&mut egui::Ui)) {
        self.click_at(label, 0.5, ui);
    }
}
