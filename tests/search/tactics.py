"""An independent check for forced Sovereign captures: a plain AND-OR search over the engine's order
generator (no evaluation, no pruning tricks), used to verify what the alpha-beta search claims."""

from engine import Position


def forced_capture(pos: Position, orders: int) -> bool:
    """Can the side to move capture the opponent's last Sovereign within ``orders`` of its own
    orders, whatever the opponent answers?"""
    if orders == 0:
        return False
    for order in pos.legal_orders():
        pos.push(order)
        try:
            if pos.is_over():
                return True
            if orders > 1:
                replies = pos.legal_orders()
                if replies and all(_still_forced(pos, reply, orders - 1) for reply in replies):
                    return True
        finally:
            pos.pop()
    return False


def wins_by(pos: Position, first: str, orders: int) -> bool:
    """Is ``first`` a winning first order of a forced capture within ``orders`` orders?"""
    pos.push(first)
    try:
        if pos.is_over():
            return True
        replies = pos.legal_orders()
        return bool(replies) and all(_still_forced(pos, reply, orders - 1) for reply in replies)
    finally:
        pos.pop()


def _still_forced(pos: Position, reply, orders: int) -> bool:
    pos.push(reply)
    try:
        return not pos.is_over() and forced_capture(pos, orders)
    finally:
        pos.pop()
