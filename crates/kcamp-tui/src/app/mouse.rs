//! The mouse: a click focuses the panel under it and selects the row clicked (a round, a
//! shape); the wheel scrolls the panel (or the popup) under the pointer, three rows a turn,
//! and in the rounds list one round a turn.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::{Effect, Model};
use crate::keys::{Action, Panel};

/// Rows one turn of the wheel moves.
const WHEEL_ROWS: usize = 3;
/// Rounds one turn moves in the rounds list: each row there is a selection that redraws the
/// gate and details, and a round passed over unseen is one the user was looking for.
const WHEEL_ROUNDS: usize = 1;

pub(super) fn on_mouse(model: &mut Model, event: &MouseEvent) -> Vec<Effect> {
    if model.too_small() {
        return Vec::new();
    }
    let at = Position::new(event.column, event.row);
    let wheel = match event.kind {
        MouseEventKind::ScrollDown => Some(Action::Down),
        MouseEventKind::ScrollUp => Some(Action::Up),
        _ => None,
    };
    if model.popup.is_some() {
        // The wheel scrolls the popup; clicks do nothing under it.
        if let Some(action) = wheel {
            let key = crossterm::event::KeyEvent::new(
                if action == Action::Down {
                    crossterm::event::KeyCode::Down
                } else {
                    crossterm::event::KeyCode::Up
                },
                crossterm::event::KeyModifiers::NONE,
            );
            let mut effects = Vec::new();
            for _ in 0..WHEEL_ROWS {
                effects.extend(super::actions::on_key(model, &key));
            }
            return effects;
        }
        return Vec::new();
    }
    let areas = crate::view::panel_areas(model);
    let Some(panel) = Panel::ALL
        .into_iter()
        .zip(areas)
        .find(|(_, area)| area.contains(at))
        .map(|(p, _)| p)
    else {
        return Vec::new();
    };
    let area = areas[panel.number() - 1];
    match (event.kind, wheel) {
        (MouseEventKind::Down(MouseButton::Left), _) => {
            model.focus = panel;
            model.redraw = true;
            match panel {
                Panel::Rounds => {
                    if let Some(i) = crate::view::rounds_row_at(model, area, at.y) {
                        model.selected = i;
                        model.follow = super::Follow::after_move(i, model.rounds.len());
                        model.refresh_selection();
                    }
                }
                Panel::Gate => {
                    if let Some(row) = crate::view::gate_row_at(model, area, at.y) {
                        model.gate.cursor = row;
                    }
                }
                _ => {}
            }
            Vec::new()
        }
        (_, Some(action)) => {
            // The panel under the pointer scrolls, focused or not.
            let focus = model.focus;
            model.focus = panel;
            let rows = if panel == Panel::Rounds {
                WHEEL_ROUNDS
            } else {
                WHEEL_ROWS
            };
            for _ in 0..rows {
                super::actions::move_in_panel(model, action);
            }
            model.focus = focus;
            model.redraw = true;
            Vec::new()
        }
        _ => Vec::new(),
    }
}
