"""The HTTP API: ``deps`` (dependency aliases), ``limits`` (body-size middleware) and one
``APIRouter`` per topic under ``routes/``; ``gateway.main.create_app`` assembles them."""
