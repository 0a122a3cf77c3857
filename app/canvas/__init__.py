"""The topology canvas: a QGraphicsScene mirroring the document, its view and the node palette."""

from app.canvas.palette import NodePalette
from app.canvas.scene import KIND_MIME, TopologyScene
from app.canvas.view import CanvasView

__all__ = ["KIND_MIME", "CanvasView", "NodePalette", "TopologyScene"]
