"""A class's projector view (``/projector?class=CODE``): a page the menu does not list
(``ui.navigation.HIDDEN``); the teacher's panel links to it (``ui.class_projector.address``)."""

from ui import class_projector

class_projector.page()
