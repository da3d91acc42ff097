"""One module per API topic, each holding one ``APIRouter`` named ``router``."""
